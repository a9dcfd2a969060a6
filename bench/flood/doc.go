// Package flood is `mbbench flood`'s generator and report: connection floods of one class at a
// target rate of new connections a second, from many loopback source addresses, while
// legitimate players keep playing through the same proxy.
//
// What each class sends on a connection (raw TCP; over TLS when the step's transport is wss):
//
//	idle       nothing; held until the proxy closes it or the hold ends
//	garbage    0x00 (a zero-length frame, so neither Minecraft, TLS nor HTTP) then 63 random bytes
//	malformed  a handshake frame that breaks one rule: next state 7, a host of 300 characters,
//	           or a body cut short inside its own length
//	ping       handshake (next state status) | status request 0x00 | ping 0x01 + 8 bytes;
//	           the status response and the pong are read
//	offline    handshake (next state login) | Login Start with a random name; the first answer
//	           is read
//	online     as offline, to the online route's host; the Encryption Request is answered
//	           (joined at the fake session server first), then one answer byte is read
//	slowtls    a TLS ClientHello, one byte a --slow-interval
//	slowws     "GET /mc HTTP/1.1" and its headers, one byte a --slow-interval
//	badtoken   a WebSocket upgrade with "Authorization: Bearer" and a token that is no token,
//	           to the path of a route that requires tokens; the answer's status line is read
//
// Sources: each connection is bound to a 127.x.y.z address before it connects (Linux answers
// the whole 127.0.0.0/8 on loopback), spread over many /24 networks or all in one, with
// IP_BIND_ADDRESS_NO_PORT so that the port is picked per destination, not per source.
package flood
