// common.js: what the interop clients and the backend share: the bytes checked end to end (a
// buffer of a known pattern, built on one side of moonbridge and compared byte by byte on the
// other) and the online login against the fake session server (session.js).
const bigLength = 300000 // the backend's plugin message: far above the compression threshold

// pattern is n bytes of (i * 31 + seed) mod 256.
const pattern = (n, seed = 0) => {
  const b = Buffer.alloc(n)
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 255
  return b
}

// mismatch is the first index at which b is not pattern(n, seed), or -1 when it is.
const mismatch = (b, n, seed = 0) => {
  for (let i = 0; i < Math.min(b.length, n); i++) if (b[i] !== ((i * 31 + seed) & 255)) return i
  return b.length === n ? -1 : Math.min(b.length, n)
}

// onlineAuth is node-minecraft-protocol's own auth (createClient's auth option), with a session
// of session.js's profile: the client joins there before it answers the Encryption Request.
const onlineAuth = (client, options) => {
  client.username = 'interop'
  client.session = { accessToken: 'interop-token', selectedProfile: { id: '0123456789abcdef0123456789abcdef', name: 'interop' } }
  options.accessToken = client.session.accessToken
  options.haveCredentials = true
  options.connect(client)
}

module.exports = { bigLength, pattern, mismatch, onlineAuth }
