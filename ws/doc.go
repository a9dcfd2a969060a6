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
