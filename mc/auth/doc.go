// Package auth runs a Minecraft login on the proxy (a route's `auth: online` or `offline`): the
// Encryption Request with the proxy's RSA key, the Encryption Response checked, the session
// server's hasJoined asked, and the forwarding of the verified player to an offline-mode backend
// (BungeeCord's legacy host field, or Velocity's signed login plugin answer). The per-version
// shapes of the login packets come from mc's table. The player's AES/CFB8 cipher is
// Config.NewCipher, the pair mc/cfb8.Choose picked for login.cipher (BoringSSL's or Go's);
// without one it is mc/cfb8's Go implementation. No sockets of its own: the relay lends it the
// player's reader and writer and the backend's connection.
package auth
