// backend.js: a Minecraft 1.12.2 server made with node-minecraft-protocol (offline mode,
// compression from 64 bytes), standing in for a real server behind moonbridge. After the
// join it echoes each chat message and then sends a 300000-byte plugin message with a known
// pattern. Usage: node backend.js PORT
const mc = require('minecraft-protocol')
const server = mc.createServer({ 'online-mode': false, encryption: false, host: '127.0.0.1', port: parseInt(process.argv[2]),
  version: '1.12.2', compressionThreshold: 64, motd: 'interop backend', maxPlayers: 7 })
server.on('playerJoin', client => {
  client.write('login', { entityId: 1, levelType: 'default', gameMode: 0, dimension: 0, difficulty: 2, maxPlayers: 20, reducedDebugInfo: false })
  client.write('position', { x: 0, y: 64, z: 0, yaw: 0, pitch: 0, flags: 0, teleportId: 1 })
  client.on('chat', data => {
    client.write('chat', { message: JSON.stringify({ text: 'echo:' + data.message }), position: 0 })
    const big = Buffer.alloc(300000); for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 255
    client.write('custom_payload', { channel: 'interop:big', data: big })
  })
})
server.on('listening', () => console.log('backend listening'))
