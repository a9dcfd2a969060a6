// session.js: a fake Mojang session server for the online-mode runs: the client's join
// (POST /session/minecraft/join) records its server hash with the profile it joined as, and
// hasJoined answers that profile for a recorded (name, hash) whose profile is the name's
// (common.js's profileID), 204 otherwise, as sessionserver.mojang.com does.
// Usage: node session.js PORT
const http = require('http')
const { profileID } = require('./common')
const properties = [{ name: 'textures', value: 'dGV4dHVyZXM=', signature: 'c2lnbmF0dXJl' }]
const joined = new Map() // server hash -> profile id
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x')
  if (req.method === 'POST' && url.pathname === '/session/minecraft/join') {
    let body = ''
    req.on('data', d => { body += d })
    req.on('end', () => {
      const j = JSON.parse(body)
      joined.set(j.serverId, j.selectedProfile)
      res.writeHead(204); res.end()
    })
  } else if (url.pathname === '/session/minecraft/hasJoined' &&
      joined.get(url.searchParams.get('serverId')) === profileID(url.searchParams.get('username') || '')) {
    const name = url.searchParams.get('username')
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ id: profileID(name), name, properties }))
  } else {
    res.writeHead(204); res.end()
  }
}).listen(parseInt(process.argv[2]), '127.0.0.1', () => console.log('session server listening'))
