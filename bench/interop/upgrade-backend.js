// upgrade-backend.js: the Minecraft server behind moonbridge in upgrade.sh, made with
// node-minecraft-protocol (offline mode, compression from 64 bytes, every release nmp knows).
// It counts each player's position packets and answers each chat message "chat N" with a chat
// message "echo N moves M", M being the position packets it has read from that player so far:
// as a player's packets come in order on one connection, M is exactly what the player sent
// before chat N, which upgrade.js checks (no byte lost or doubled on the way through moonbridge).
// Each join and each leave is one JSON line on stdout: {"joined":NAME,"protocol":N} and
// {"left":NAME,"chats":N,"moves":M,"reason":"..."}.
// Usage: node upgrade-backend.js PORT
const mc = require('minecraft-protocol')
const nbt = require('prismarine-nbt')
const server = mc.createServer({ 'online-mode': false, encryption: false, host: '127.0.0.1', port: parseInt(process.argv[2]),
  version: false, compressionThreshold: 64, motd: 'interop upgrade backend', maxPlayers: 20 })

// loginOf is the join's login packet: minecraft-data's sample of the release where it has one
// (1.20.2 and later, among those upgrade.sh plays), else the fields of 1.8 to 1.12.
const loginOf = data => data.loginPacket ? { ...data.loginPacket, entityId: 1 }
  : { entityId: 1, levelType: 'default', gameMode: 0, dimension: 0, difficulty: 2, maxPlayers: 20, reducedDebugInfo: false }

// say sends text as a server chat message in the packet the release has for it.
const say = (client, data, text) => {
  if (!data.protocol.play.toClient.types.packet_system_chat) {
    client.write('chat', { message: JSON.stringify({ text }), position: 0, sender: '00000000-0000-0000-0000-000000000000' })
  } else if (data.supportFeature('chatPacketsUseNbtComponents')) {
    client.write('system_chat', { content: nbt.comp({ text: nbt.string(text) }), isActionBar: false })
  } else {
    client.write('system_chat', { content: JSON.stringify({ text }), isActionBar: false, type: 1 })
  }
}

server.on('playerJoin', client => {
  const data = require('minecraft-data')(client.version)
  client.write('login', loginOf(data))
  let chats = 0, moves = 0
  client.on('position', () => { moves++ })
  const onChat = p => {
    chats++
    say(client, data, 'echo ' + p.message.replace(/^chat /, '') + ' moves ' + moves)
  }
  client.on('chat', onChat) // before 1.19
  client.on('chat_message', onChat) // 1.19 and later
  console.log(JSON.stringify({ joined: client.username, protocol: client.protocolVersion }))
  client.on('end', reason => console.log(JSON.stringify({ left: client.username, chats, moves, reason: String(reason) })))
})
server.on('listening', () => console.log('backend listening'))
