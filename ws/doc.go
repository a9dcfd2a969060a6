// Package ws is moonbridge's RFC 6455 WebSocket codec.
//
// It has two layers. The low layer is stateless: frame headers
// (ParseHeader, PutHeader, AppendHeader), masking (MaskBytes) and close
// payloads (ParseClosePayload, PutClosePayload). They take the caller's
// buffers and do not allocate.
//
// The high layer is Conn: one WebSocket connection treated as a byte stream.
// Reads gather the payloads of binary and continuation frames across frames
// and messages (message boundaries mean nothing to Minecraft), straight into
// the caller's buffer. Writes send one binary message per batch of at most
// MaxBatchSize bytes, with the header written into MaxHeaderLen bytes of
// headroom in front of the payload, so a batch is one socket write. Server
// (Server, NewConn) and client (Dial, Encoder) sides share Conn.
//
// # On an event loop
//
// On Linux the relay moves established sessions to event loops (loop). Conn.Detach takes
// a server Conn off its goroutine between two Reads; NewLoopCodec carries on from its state as
// the side's loop.Codec: the same parser (parser, shared with Read), the keepalive's rule as a
// loop.Ticker on the loop's timer wheel (silence, shared with the goroutine keepalive), and the
// close frames the relay picks (SetClose for a clean end, SetCloseFor for an error: End). It
// can sit on an inner codec, the TLS records of wss. It answers only the last ping of each
// read, as RFC 6455 5.5.3 allows, so its replies stay bounded.
//
// # Early data and the raw stream
//
// Two modes only moonbridge's client bridge and server speak, each opt-in on both ends,
// negotiated in the upgrade's Sec-WebSocket-Protocol (RFC 6455 section 4.1: the client offers
// values, the server selects at most one and echoes it). The client offers the mode tokens it
// would take, best first, then the data value when it has early data (Dial: DialConfig.EarlyData,
// RawStream). One token names both modes, since only one value can be selected:
//
//	GET /mc HTTP/1.1
//	Sec-WebSocket-Protocol: moonbridge-ed-raw, moonbridge-ed, moonbridge-raw, moonbridge-ed.FwD_BRBwbGF5LmV4...
//	                        \__________ mode tokens, best first ________/ \_ EarlyDataPrefix + base64url _/
//	                                                                       (RFC 4648 §5, no padding: each
//	                                                                       character an HTTP token's), at
//	                                                                       most MaxEarlyData bytes decoded
//	                                                                       (here a handshake for
//	                                                                       play.example.net, then Login Start)
//
//	HTTP/1.1 101 Switching Protocols
//	Sec-WebSocket-Protocol: moonbridge-ed-raw                    (one token, or none)
//
//	selected            early data                          after the 101, both ways
//	moonbridge-ed-raw   taken: the stream's first bytes     the raw stream
//	moonbridge-ed       taken                               frames
//	moonbridge-raw      not taken: the client sends them    the raw stream
//	none, or another    not taken                           frames
//
// Early data are the stream's first bytes (the bridge's: a Minecraft handshake and Login Start or
// status request). A server with ServerConfig.EarlyData takes them (ParseOffer bounds and
// decodes them, and refuses a malformed or oversized offer with 400 or 431 before the upgrade),
// writes the 101 and only then runs its Handler, whose first Reads return them, before any
// frame: the proxy routes, checks and dials the backend while the 101 travels to the client,
// which saves the round trip of sending them after it. The data value itself is never selected,
// so the answer does not carry the bytes back. A server without the setting, an older one or any
// other, selects none of the tokens: the client sends its bytes in frames (Conn.EarlyData says
// which happened).
//
// The raw stream (ServerConfig.RawStream) is what follows the 101 with no WebSocket at all: the
// Minecraft bytes, unmasked, in both directions, as over plain TCP (or TLS, for wss). It has no
// frames, so no ping, pong or close frame: no keepalive (a CDN idle timeout is met by the game's
// own keepalive packets, which a Minecraft server sends every 15 s), no close code or reason
// (the end of the stream is a TCP FIN or a TLS close_notify; an error only closes), and the
// dead-peer check is TCP's keepalive, which Go turns on for every dialled and accepted socket
// (first probe after 15 s of silence). A CDN or proxy that passes the upgraded connection as a
// stream carries it; one that reads the frames breaks it.
//
// Third-party clients see none of this: they offer other subprotocols (or none) and get the
// server's Subprotocols rule, after the mode tokens.
//
// # Frame layout (RFC 6455 section 5.2)
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-------+-+-------------+-------------------------------+
//	|F|R|R|R| opcode|M| Payload len |    Extended payload length    |
//	|I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
//	|N|V|V|V|       |S|             |   (if payload len==126/127)   |
//	| |1|2|3|       |K|             |                               |
//	+-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
//	|     Extended payload length continued, if payload len == 127  |
//	+ - - - - - - - - - - - - - - - +-------------------------------+
//	|                               |Masking-key, if MASK set to 1  |
//	+-------------------------------+-------------------------------+
//	| Masking-key (continued)       |          Payload Data         |
//	+-------------------------------- - - - - - - - - - - - - - - - +
//	:                     Payload Data continued ...                :
//	+---------------------------------------------------------------+
//
// Payload len 0-125 is the length itself; 126 means a 16-bit length
// follows, 127 a 64-bit one (top bit zero). The shortest form is
// mandatory, so a header is 2, 4 or 10 bytes plus 4 for a masking key:
// at most MaxHeaderLen (14) bytes. Client frames are masked, server frames
// are not; control frames (close, ping, pong) carry at most 125 bytes and
// are never fragmented.
//
// # What this package refuses
//
// Reserved bits (no extension is ever negotiated), unknown opcodes,
// oversized or fragmented control frames, non-minimal lengths and a 64-bit
// length with the top bit set close with 1002. Unmasked client frames (and
// masked server frames) close with 1002. Text frames close with 1003: the
// Minecraft stream is binary. A frame or message over the configured limit
// closes with 1009; a close reason that is not UTF-8 with 1007. Bad input
// never panics: it ends that one connection with a close code and reason.
package ws
