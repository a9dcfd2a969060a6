// Package mc is the Minecraft wire format alone: VarInt, frames, the
// handshake, status and disconnect answers, and the pre-1.7 legacy ping. It
// has no sockets and no policy: moonbridge's server (package relay), its
// client bridge and its benchmark all parse and build Minecraft bytes here,
// and each decides for itself what to answer and when.
//
// The parsers are pure codecs over byte slices: they take the bytes
// received so far and answer with a value and how many bytes it used, or
// with ErrNeedMore when the bytes are a valid beginning that needs more
// input. Any other error is a *ProtocolError naming the layer, the byte
// offset and a sentinel reason for errors.Is. Bad input never panics.
// ReadHello, ReadStatusPacket and FrameReader run them over a stream.
//
// What a Minecraft connection starts with, before a proxy turns into a pipe:
//
//	hello           a modern handshake frame (handshake.go) or a pre-1.7
//	                0xFE server-list ping (legacy.go), see ParseHello
//	[status state]  status request and ping, which a proxy may answer
//	                itself when no server is up (statusread.go, status.go;
//	                Answer serves the whole exchange)
//
// After the handshake a proxy forwards bytes untouched; it never needs to
// know the game version, only the frame layout shared by every version
// since 1.7:
//
//	+-----------------+-----------------+--------------------------+
//	| length: VarInt  | packet id:      | fields                   |
//	| (of what        | VarInt          |                          |
//	|  follows)       |                 |                          |
//	+-----------------+-----------------+--------------------------+
//
// A VarInt is 1 to 5 bytes (varint.go); a frame body is at most
// MaxFrameLen bytes. Strings are a VarInt byte length and UTF-8.
package mc
