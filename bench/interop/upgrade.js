// upgrade.js: a player that plays on through a moonbridge upgrade (upgrade.sh), made with
// node-minecraft-protocol, of any release nmp knows. It joins at PORT (offline) and plays on a
// timer: a position packet every 100 ms and a chat message "chat N" every 250 ms, which
// upgrade-backend.js answers with "echo N moves M". Every echo must come in order, and M must be
// exactly the position packets sent before chat N. It prints "ready" at its first echo.
//   SIGUSR2 marks the upgrade: the counts so far are "before", the rest "after".
//   SIGTERM ends the game: it stops sending, waits for the echoes of every chat sent, prints the
//   counts before and after the mark, leaves (closes its connection) and exits 0.
// A Disconnect packet, a closed connection or an error before SIGTERM, an echo out of order or
// with another move count, fewer than --after echoes after the mark, or a missing mark fails it
// (a line "NAME: FAIL why", exit 1). --late: it joined after the upgrade, so it takes no mark.
// --session URL: it logs in online, as NAME's profile at session.js there (moonbridge runs the
// login, so the stream is encrypted, which it checks), saying --host in its handshake.
// Usage: node upgrade.js --port P --name NAME --version V [--after N] [--late] [--session URL --host H]
const mc = require('minecraft-protocol')
const { parseArgs } = require('util')
const { onlineAuthAs } = require('./common')
const { values: opt } = parseArgs({ options: { port: { type: 'string' }, name: { type: 'string' }, version: { type: 'string' },
  after: { type: 'string', default: '1' }, late: { type: 'boolean' }, session: { type: 'string' }, host: { type: 'string' } } })
const label = opt.name
const fail = m => { console.log(label + ': FAIL ' + m); process.exit(1) }
if (!opt.port || !opt.name || !opt.version) fail('usage: see upgrade.js')
setTimeout(() => fail('timeout'), 150000) // upgrade.sh ends it well before; this bounds an orphan
const period = { move: 100, chat: 250 }

const sent = { chats: 0, moves: 0 }
const movesBefore = [] // movesBefore[n]: position packets sent before chat n
const got = { echoes: 0, moves: 0 } // echoes read in order; the backend's move count in the last
let mark = opt.late ? { echoes: 0, moves: 0 } : null
let leaving = false
const timers = []

const client = mc.createClient({ host: '127.0.0.1', port: parseInt(opt.port), username: opt.name, version: opt.version,
  auth: opt.session ? onlineAuthAs(opt.name) : 'offline', sessionServer: opt.session, fakeHost: opt.host })
let encrypted = false
client.on('encryption_begin', () => { encrypted = true })
client.on('packet', (p, meta) => {
  if (meta.name === 'disconnect' || meta.name === 'kick_disconnect') fail('Disconnect in state ' + meta.state + ': ' + JSON.stringify(p.reason))
  if (meta.name === 'chat' || meta.name === 'system_chat') echo(JSON.stringify(p))
})
client.on('error', e => fail('client: ' + e))
client.on('end', reason => { if (!leaving) fail('connection closed while playing (' + got.echoes + ' echoes): ' + reason) })
client.on('login', () => {
  if (!!opt.session !== encrypted) fail('encryption ' + encrypted + ', want ' + !!opt.session)
  timers.push(setInterval(() => {
    client.write('position', { x: sent.moves % 16, y: 64, z: 0, onGround: true, flags: { onGround: true } })
    sent.moves++
  }, period.move))
  timers.push(setInterval(() => {
    movesBefore.push(sent.moves)
    client.chat('chat ' + sent.chats)
    sent.chats++
  }, period.chat))
})

// echo checks one of the backend's chat messages (the packet as JSON: its text is in there).
function echo (packet) {
  const m = /echo (\d+) moves (\d+)/.exec(packet)
  if (!m) return
  const n = parseInt(m[1]), moves = parseInt(m[2])
  if (n !== got.echoes) fail('echo of chat ' + n + ', want ' + got.echoes)
  if (moves !== movesBefore[n]) fail('echo of chat ' + n + ' counts ' + moves + ' moves, want ' + movesBefore[n])
  got.echoes++
  got.moves = moves
  if (n === 0) console.log(label + ': ready: ' + opt.version + ' playing at 127.0.0.1:' + opt.port + (encrypted ? ' (online, encrypted)' : ''))
}

process.on('SIGUSR2', () => {
  mark = { ...got }
  console.log(label + ': mark: ' + mark.echoes + ' echoes, ' + mark.moves + ' moves')
})

process.on('SIGTERM', () => {
  timers.forEach(clearInterval)
  const since = Date.now()
  const check = setInterval(() => {
    if (got.echoes < sent.chats && Date.now() - since < 5000) return
    clearInterval(check)
    if (got.echoes < sent.chats) fail((sent.chats - got.echoes) + ' of ' + sent.chats + ' chats not echoed')
    if (!mark) fail('no mark: SIGUSR2 never came')
    const after = { echoes: got.echoes - mark.echoes, moves: got.moves - mark.moves }
    if (after.echoes < parseInt(opt.after)) fail(after.echoes + ' echoes after the mark, want at least ' + opt.after)
    console.log(label + ': ok: before ' + mark.echoes + ' chats ' + mark.moves + ' moves, after ' + after.echoes + ' chats ' +
      after.moves + ' moves; every echo in order with its exact move count; no Disconnect, no closed connection')
    leaving = true
    client.end()
    process.exit(0)
  }, 50)
})
