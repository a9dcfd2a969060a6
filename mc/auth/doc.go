// Package auth runs a Minecraft login on the proxy (a route's `auth: online` or `offline`): the
// Encryption Request with the proxy's RSA key, the Encryption Response checked, the session
// server's hasJoined asked, and the forwarding of the verified player to an offline-mode backend
// (BungeeCord's legacy host field, or Velocity's signed login plugin answer). The per-version
// shapes of the login packets come from mc's table; the player's cipher from
// Config.NewCipher, mc/cfb8's Go or BoringSSL pair (Go's when nil). No sockets of its own: the relay lends it the player's reader and writer and the
// backend's connection.
package auth
