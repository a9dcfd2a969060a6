// transfer.js: a Minecraft client of 1.20.5 or later, made with node-minecraft-protocol, that a
// draining moonbridge moves as it moves a vanilla client. It joins at PORT and plays (an
// interop:echo plugin message that must come back byte-exact, then the backend's 300000-byte
// one), prints "ready" and waits. On a Transfer it keeps the cookies the server stored, leaves,
// joins the host and port the Transfer names with handshake next state 3, answers the new
// server's Cookie Request with the stored cookie and plays again there. nmp 1.68 has the
// packets but follows no Transfer, keeps no cookies and always sends next state 2: this file
// does all three (set_protocol is rewritten on its way out). A Disconnect at any point fails it.
// With --stay (a client before 1.20.5: no Transfer packet) it passes when the server closes the
// connection without having sent a Transfer.
// Usage: node transfer.js --port P --name NAME --version V (--expect HOST:PORT | --stay)
//          [--host H] [--configure] [--session URL]
//   NAME: the label of its lines, and the player's name; --host: the handshake's host (to pick
//   a route by host); --configure: wait in the configuration state (the backend sends the player
//   back there) instead of in play; --session: log in online where the server asks for it, as
//   session.js's player "interop", and the first join must be encrypted.
const mc = require('minecraft-protocol')
const { parseArgs } = require('util')
const { mismatch, bigLength, pattern, onlineAuth } = require('./common')
const { values: opt } = parseArgs({ options: { port: { type: 'string' }, name: { type: 'string' }, version: { type: 'string' },
  expect: { type: 'string' }, stay: { type: 'boolean' }, host: { type: 'string' }, configure: { type: 'boolean' },
  session: { type: 'string' } } })
const label = opt.name
const fail = m => { console.log(label + ': FAIL ' + m); process.exit(1) }
if (!opt.port || !opt.name || !opt.version || !opt.expect === !opt.stay) fail('usage: see transfer.js')
setTimeout(() => fail('timeout'), 60000)
const echoLength = 4000 // a serverbound plugin message may have up to 32767 bytes
const cookies = new Map() // key -> value, as a vanilla client keeps them across a transfer

// join logs in to host:port and plays; played(client) runs once both plugin messages came back
// right. With transfer it is a transfer login: next state 3, and Cookie Requests are answered.
function join (host, port, transfer, played) {
  const client = mc.createClient({ host, port: parseInt(port), username: opt.name, version: opt.version,
    auth: opt.session ? onlineAuth : 'offline', sessionServer: opt.session, fakeHost: transfer ? undefined : opt.host })
  client.asked = []
  client.on('encryption_begin', () => { client.encrypted = true })
  if (transfer) {
    const write = client.write.bind(client)
    client.write = (name, params) => write(name, name === 'set_protocol' ? { ...params, nextState: 3 } : params)
    client.on('cookie_request', p => {
      client.asked.push(p.cookie)
      client.write('cookie_response', { key: p.cookie, value: cookies.get(p.cookie) })
    })
  }
  client.on('packet', (p, meta) => {
    if (meta.name === 'disconnect' || meta.name === 'kick_disconnect') client.kicked = JSON.stringify(p.reason)
    if (client.kicked && !opt.stay) fail('Disconnect in state ' + meta.state + ': ' + client.kicked)
  })
  client.on('store_cookie', p => cookies.set(p.key, p.value))
  client.on('error', e => fail('client: ' + e))
  client.on('end', reason => { if (!client.leaving) (client.onEnd || (() => fail('ended: ' + reason)))(reason) })
  const seed = transfer ? 1 : 0
  client.on('login', () => client.write('custom_payload', { channel: 'interop:echo', data: pattern(echoLength, seed) }))
  let echoed = false
  client.on('custom_payload', p => {
    if (p.channel === 'interop:echo') {
      const at = mismatch(p.data, echoLength, seed)
      if (at >= 0) fail('echo of ' + p.data.length + ' bytes, first wrong byte ' + at)
      echoed = true
    } else if (p.channel === 'interop:big') {
      const at = mismatch(p.data, bigLength)
      if (!echoed || at >= 0) fail('echoed ' + echoed + ', big message of ' + p.data.length + ' bytes, first wrong byte ' + at)
      played(client)
    }
  })
  return client
}

// wait makes the client wait where the drain finds it: in play, or back in configuration.
function wait (client, ready) {
  if (!opt.configure) return ready('play')
  client.once('start_configuration', () => setImmediate(() => ready(client.state)))
  client.write('custom_payload', { channel: 'interop:reconfigure', data: Buffer.alloc(0) })
}

// follow leaves for the Transfer's address and plays there, as a vanilla client does.
function follow (client, p) {
  const where = p.host + ':' + p.port, state = client.state
  if (opt.stay) fail('sent a Transfer to ' + where + ' (in ' + state + ')')
  if (where !== opt.expect) fail('Transfer to ' + where + ', want ' + opt.expect)
  client.leaving = true
  client.end()
  const stored = [...cookies].map(([k, v]) => k + ' (' + v.length + ' bytes)').join(', ') || 'none'
  join(p.host, p.port, true, again => {
    console.log(label + ': ok: Transfer to ' + where + ' in ' + state + ', cookie ' + stored + '; joined there with next state 3' +
      (again.encrypted ? ' (encrypted)' : '') + ', Cookie Request for [' + again.asked.join(', ') + '] answered; ' +
      'echo and 300000-byte message byte-exact; no Disconnect')
    again.leaving = true
    again.end()
    process.exit(0)
  })
}

join('127.0.0.1', opt.port, false, client => wait(client, state => {
  if (!!opt.session !== !!client.encrypted) fail('encrypted ' + !!client.encrypted + ', want ' + !!opt.session)
  console.log(label + ': ready: ' + opt.version + (client.encrypted ? ' online (encrypted)' : '') + ' played at 127.0.0.1:' + opt.port +
    ' (echo and 300000-byte message byte-exact), waiting in ' + state)
  const since = Date.now()
  client.on('transfer', p => follow(client, p))
  client.onEnd = reason => {
    if (!opt.stay) fail('ended without a Transfer: ' + reason)
    console.log(label + ': ok: not moved: closed by the server after ' + ((Date.now() - since) / 1000).toFixed(1) + ' s, no Transfer' +
      (client.kicked ? ', Disconnect ' + client.kicked : ', no Disconnect'))
    process.exit(0)
  }
}))
