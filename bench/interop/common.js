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

// profileID is the UUID (32 hex digits) session.js gives a player name: session.js's first
// profile's for "interop", the name's bytes in hex otherwise (names are at most 16 bytes).
const profileID = name => name === 'interop' ? '0123456789abcdef0123456789abcdef'
  : Buffer.from(name).toString('hex').padEnd(32, '0')

// onlineAuthAs is node-minecraft-protocol's own auth (createClient's auth option) for a session
// of name's profile at session.js: the client joins there before it answers the Encryption
// Request. onlineAuth is the player "interop".
const onlineAuthAs = name => (client, options) => {
  client.username = name
  client.session = { accessToken: 'interop-token', selectedProfile: { id: profileID(name), name } }
  options.accessToken = client.session.accessToken
  options.haveCredentials = true
  options.connect(client)
}
const onlineAuth = onlineAuthAs('interop')

module.exports = { bigLength, pattern, mismatch, profileID, onlineAuth, onlineAuthAs }
