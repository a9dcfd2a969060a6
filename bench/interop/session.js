// session.js: a fake Mojang session server for the online-mode runs: the client's join
// (POST /session/minecraft/join) records its server hash, and hasJoined answers the profile for
// a recorded (name, hash), 204 otherwise, as sessionserver.mojang.com does.
// Usage: node session.js PORT
const http = require('http')
const profile = { id: '0123456789abcdef0123456789abcdef', name: 'interop',
  properties: [{ name: 'textures', value: 'dGV4dHVyZXM=', signature: 'c2lnbmF0dXJl' }] }
const joined = new Set()
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x')
  if (req.method === 'POST' && url.pathname === '/session/minecraft/join') {
    let body = ''
    req.on('data', d => { body += d })
    req.on('end', () => {
      const j = JSON.parse(body)
      if (j.selectedProfile === profile.id) joined.add(j.serverId)
      res.writeHead(204); res.end()
    })
  } else if (url.pathname === '/session/minecraft/hasJoined' && url.searchParams.get('username') === profile.name &&
      joined.has(url.searchParams.get('serverId'))) {
    res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(profile))
  } else {
    res.writeHead(204); res.end()
  }
}).listen(parseInt(process.argv[2]), '127.0.0.1', () => console.log('session server listening'))
