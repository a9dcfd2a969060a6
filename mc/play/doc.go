// Package play lets a proxy put packets of its own into the server-to-client stream of a
// Minecraft session of protocol 766 (1.20.5) or later, between two of the server's packets:
// a Transfer to another server on drain, with a cookie stored first, or a Disconnect. Package mc
// stops at Login Start; this package follows the stream after it without decoding the game:
// a Tracker reads each frame's length and packet id, and the state changes and compression
// they make, and says when the stream is at a boundary where a packet can go (Movable). The
// encoders write frames for that state, protocol and compression. The login state's cookie
// packets serve the destination of a transfer.
//
// Frames, before Set Compression (and when its threshold is negative):
//
//	+----------------+-----------------+------------------------+
//	| length VarInt  | packet id       | fields                 |
//	| (of the rest)  | VarInt          |                        |
//	+----------------+-----------------+------------------------+
//
// after it, every frame, whatever its size:
//
//	+----------------+-----------------+------------------------------------------+
//	| length VarInt  | data length     | data length 0: packet id, fields         |
//	| (of the rest)  | VarInt          | otherwise: zlib(packet id, fields), of   |
//	|                |                 | data length bytes once decompressed      |
//	+----------------+-----------------+------------------------------------------+
//
// A length is at most mc.MaxFrameLen (3 VarInt bytes). Servers compress packets of at least the
// threshold; clients take data length 0 at any size, which is how the encoders write.
//
// The states of the server-to-client stream, and the packets that move it:
//
//	login ---- Login Success ----> configuration ---- Finish Configuration ----> play
//	  |                                 ^                                         |
//	  |                                 +----------- Start Configuration ---------+
//	  +-- Set Compression: frames compressed from the next one on
//	  +-- Encryption Request: encrypted from the client's answer on; the tracker is lost
//	Login Disconnect, Disconnect, Transfer: the client reads no further (Ended)
//
// In play, packets between two Bundle Delimiters reach the client's game together: the tracker
// is not Movable inside a bundle. The packet ids of each protocol come from minecraft-data
// (ids_gen.go); the login state's are the same in every protocol since 1.20.5 (package mc's
// constants, and CookieResponseID).
package play
