// cdn.js: stands in for the CDN in front of moonbridge instances, at the TCP level (wss goes
// through untouched): each connection goes to the first origin that accepts it, as a CDN sends
// a new WebSocket to a live origin, so once the first instance drains (its listeners closed)
// connections land on the next. One line per connection: "cdn: to ORIGIN".
// Usage: node cdn.js PORT ORIGIN... (ORIGIN: 127.0.0.1:PORT)
const net = require('net')
const [port, ...origins] = process.argv.slice(2)

// forward pipes down to the first of origins[i:] that accepts a connection.
function forward (down, i) {
  if (i === origins.length) { console.log('cdn: no origin accepts'); down.destroy(); return }
  const [host, p] = origins[i].split(':')
  const up = net.connect(parseInt(p), host)
  up.once('error', () => forward(down, i + 1)) // refused: that origin is draining or gone
  up.once('connect', () => {
    console.log('cdn: to ' + origins[i])
    up.removeAllListeners('error')
    up.on('error', () => down.destroy())
    down.on('close', () => up.destroy())
    down.pipe(up)
    up.pipe(down)
    down.resume()
  })
}

net.createServer({ pauseOnConnect: true }, down => {
  down.on('error', () => down.destroy()) // a reset: 'close' follows
  forward(down, 0)
}).listen(parseInt(port), '127.0.0.1', () => console.log('cdn listening'))
