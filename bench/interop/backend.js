// backend.js: a Minecraft server made with node-minecraft-protocol (offline mode, compression
// from 64 bytes), standing in for a real server behind moonbridge. By default it is a 1.12.2
// server: after the join it echoes each chat message and then sends a 300000-byte plugin message
// with a known pattern. With "bungeecord" it refuses a player whose handshake does not carry
// BungeeCord's forwarding of the fake session server's profile (address, UUID, signed skin), as
// Spigot does. With "any" it takes every release nmp knows (1.20.4 and 1.21.x for transfer.js):
// it echoes each interop:echo plugin message and then sends the big one, and an
// interop:reconfigure one sends the player back to the configuration state, where it stays.
// Every login handshake is one JSON line on stdout: {"handshake":NEXT_STATE,"protocol":N}.
// Usage: node backend.js PORT [bungeecord|any]
const mc = require('minecraft-protocol')
const states = require('minecraft-protocol/src/states')
const { bigLength, pattern } = require('./common')
const mode = process.argv[3]
// forwardingError says what is wrong with a BungeeCord host field, or '' when it is right.
const forwardingError = host => {
  const parts = host.split('\0')
  if (parts.length !== 4) return 'host field of ' + parts.length + ' parts, want 4 (BungeeCord forwarding)'
  if (parts[1] !== '127.0.0.1' || parts[2] !== '0123456789abcdef0123456789abcdef') return 'forwarded ' + parts[1] + ' ' + parts[2]
  const props = JSON.parse(parts[3])
  if (props.length !== 1 || props[0].name !== 'textures' || props[0].signature !== 'c2lnbmF0dXJl') return 'properties ' + parts[3]
  return ''
}
const big = pattern(bigLength)
const server = mc.createServer({ 'online-mode': false, encryption: false, host: '127.0.0.1', port: parseInt(process.argv[2]),
  version: mode === 'any' ? false : '1.12.2', compressionThreshold: 64, motd: 'interop backend', maxPlayers: 7 })
server.on('connection', client => client.once('set_protocol', p => {
  if (p.nextState !== 1) console.log(JSON.stringify({ handshake: p.nextState, protocol: p.protocolVersion }))
}))
// joinOld plays the 1.12.2 game: a chat message is echoed, then the big plugin message follows.
const joinOld = client => {
  client.write('login', { entityId: 1, levelType: 'default', gameMode: 0, dimension: 0, difficulty: 2, maxPlayers: 20, reducedDebugInfo: false })
  client.write('position', { x: 0, y: 64, z: 0, yaw: 0, pitch: 0, flags: 0, teleportId: 1 })
  client.on('chat', data => {
    client.write('chat', { message: JSON.stringify({ text: 'echo:' + data.message }), position: 0 })
    client.write('custom_payload', { channel: 'interop:big', data: big })
  })
}
// joinAny plays any release with plugin messages: the client's login packet is minecraft-data's
// sample of its release.
const joinAny = client => {
  client.write('login', { ...require('minecraft-data')(client.version).loginPacket, entityId: 1 })
  client.on('custom_payload', p => {
    if (p.channel === 'interop:echo') {
      client.write('custom_payload', p)
      client.write('custom_payload', { channel: 'interop:big', data: big })
    } else if (p.channel === 'interop:reconfigure') {
      client.once('configuration_acknowledged', () => { client.state = states.CONFIGURATION })
      client.write('start_configuration', {})
    }
  })
}
server.on('playerJoin', client => {
  const bad = mode === 'bungeecord' ? forwardingError(client.serverHost) : ''
  if (bad) { console.log('backend: refused: ' + bad); client.end(bad); return }
  if (mode === 'any') joinAny(client)
  else joinOld(client)
})
server.on('listening', () => console.log('backend listening'))
