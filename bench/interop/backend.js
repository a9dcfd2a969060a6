// backend.js: a Minecraft 1.12.2 server made with node-minecraft-protocol (offline mode,
// compression from 64 bytes), standing in for a real server behind moonbridge. After the
// join it echoes each chat message and then sends a 300000-byte plugin message with a known
// pattern. With "bungeecord" it refuses a player whose handshake does not carry BungeeCord's
// forwarding of the fake session server's profile (address, UUID, signed skin), as Spigot does.
// Usage: node backend.js PORT [bungeecord]
const mc = require('minecraft-protocol')
const { bigLength, pattern } = require('./common')
const wantForwarding = process.argv[3] === 'bungeecord'
// forwardingError says what is wrong with a BungeeCord host field, or '' when it is right.
const forwardingError = host => {
  const parts = host.split('\0')
  if (parts.length !== 4) return 'host field of ' + parts.length + ' parts, want 4 (BungeeCord forwarding)'
  if (parts[1] !== '127.0.0.1' || parts[2] !== '0123456789abcdef0123456789abcdef') return 'forwarded ' + parts[1] + ' ' + parts[2]
  const props = JSON.parse(parts[3])
  if (props.length !== 1 || props[0].name !== 'textures' || props[0].signature !== 'c2lnbmF0dXJl') return 'properties ' + parts[3]
  return ''
}
const server = mc.createServer({ 'online-mode': false, encryption: false, host: '127.0.0.1', port: parseInt(process.argv[2]),
  version: '1.12.2', compressionThreshold: 64, motd: 'interop backend', maxPlayers: 7 })
server.on('playerJoin', client => {
  const bad = wantForwarding ? forwardingError(client.serverHost) : ''
  if (bad) { console.log('backend: refused: ' + bad); client.end(bad); return }
  client.write('login', { entityId: 1, levelType: 'default', gameMode: 0, dimension: 0, difficulty: 2, maxPlayers: 20, reducedDebugInfo: false })
  client.write('position', { x: 0, y: 64, z: 0, yaw: 0, pitch: 0, flags: 0, teleportId: 1 })
  client.on('chat', data => {
    client.write('chat', { message: JSON.stringify({ text: 'echo:' + data.message }), position: 0 })
    client.write('custom_payload', { channel: 'interop:big', data: pattern(bigLength) })
  })
})
server.on('listening', () => console.log('backend listening'))
