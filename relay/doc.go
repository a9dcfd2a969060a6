// Package relay holds the Minecraft side of moonbridge: framing, the first
// bytes a client sends, the proxy's own status answers, how the real client
// address reaches the proxy (PROXY protocol, forwarded headers), and the
// Server that runs listeners and sessions.
//
// A Server accepts on each listener, reads a PROXY header from trusted peers,
// sniffs the first byte (0x16 is wss, "GET " is ws, anything else is a
// Minecraft hello) and runs one session per player:
//
//	accept -> limits -> [PROXY] -> sniff -+-> minecraft ---------------------+
//	                                      +-> ws:  net/http upgrade (ws) ----+-> session
//	                                      +-> wss: gossl -> upgrade (ws) ----+
//
//	session: hello -> route (host, path) -> dial backends in order
//	         -> [PROXY header] + handshake + buffered bytes in one write
//	         -> two pumps:  client --read--> one write --> backend
//	                        backend --read into headroom--> one WriteBatch --> client
//	         or, with no backend: the fallback status / login disconnect
//
// A pump does not read again until its write returned, so a slow side holds
// back the other and a session holds at most one 64 KiB buffer per direction.
//
// The protocol parsers are pure codecs over byte slices: parsers take the bytes
// received so far and answer with a value and how many bytes it used, or with
// ErrNeedMore when the bytes are a valid beginning that needs more input.
// Any other error is a *ProtocolError naming the layer, the byte offset and a
// sentinel reason for errors.Is. Bad input never panics.
//
// What a connection may start with, before the relay turns into a pipe:
//
//	[PROXY header]  only from a trusted load balancer or CDN (proxyproto.go)
//	hello           a modern handshake frame (handshake.go) or a pre-1.7
//	                0xFE server-list ping (legacy.go), see ParseHello
//	[status state]  status request and ping, answered by the proxy itself
//	                when no backend is up (statusread.go, status.go)
//
// After the handshake the relay forwards bytes untouched; it never needs to
// know the game version, only the frame layout shared by every version since
// 1.7:
//
//	+-----------------+-----------------+--------------------------+
//	| length: VarInt  | packet id:      | fields                   |
//	| (of what        | VarInt          |                          |
//	|  follows)       |                 |                          |
//	+-----------------+-----------------+--------------------------+
package relay
