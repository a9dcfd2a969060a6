// client.js: a Minecraft 1.12.2 client made with node-minecraft-protocol: a server-list ping,
// then an offline login, a chat message that must come back echoed, and the backend's
// 300000-byte plugin message, checked byte by byte. Exit 0 on success, 1 with a reason. With a
// session server URL it logs in online: it joins there (as a client joins Mojang's) before it
// answers the Encryption Request, and encrypts from then on.
// Usage: node client.js PORT LABEL [SESSION_SERVER_URL]
const mc = require('minecraft-protocol')
const { bigLength, mismatch, onlineAuth } = require('./common')
const port = parseInt(process.argv[2]), label = process.argv[3], sessionServer = process.argv[4]
const fail = m => { console.log(label + ': FAIL ' + m); process.exit(1) }
setTimeout(() => fail('timeout'), 20000)
mc.ping({ host: '127.0.0.1', port, version: '1.12.2' }, (err, res) => {
  if (err) fail('ping: ' + err)
  const motd = typeof res.description === 'string' ? res.description : JSON.stringify(res.description)
  console.log(label + ': status ok, version ' + res.version.name + ', players max ' + res.players.max + ', motd ' + motd)
  const client = mc.createClient({ host: '127.0.0.1', port, username: 'interop', version: '1.12.2',
    auth: sessionServer ? onlineAuth : 'offline', sessionServer })
  let encrypted = false, done = false
  client.on('encryption_begin', () => { encrypted = true })
  let echoed = false
  client.on('login', () => client.write('chat', { message: 'hello-through-moonbridge' }))
  client.on('chat', p => { if (p.message.includes('echo:hello-through-moonbridge')) echoed = true })
  client.on('custom_payload', p => {
    if (p.channel !== 'interop:big') return
    const at = mismatch(p.data, bigLength)
    if (!echoed || at >= 0) fail('echo ' + echoed + ', len ' + p.data.length + ', first wrong byte ' + at)
    if (!!sessionServer !== encrypted) fail('encryption ' + encrypted + ', want ' + !!sessionServer)
    console.log(label + ': login ok' + (encrypted ? ' (online, encrypted)' : '') + ', chat echoed, 300000-byte plugin message (compressed) byte-exact')
    done = true; client.end(); process.exit(0)
  })
  client.on('error', e => fail('client: ' + e))
  client.on('end', reason => { if (!done) fail('ended: ' + reason) })
})
