// Package bridge is the client bridge: it lets an unmodified Minecraft client play through a
// moonbridge server reached over WebSocket. It listens on a local TCP port; every game
// connection gets its own WebSocket session and the two are relayed both ways.
//
//	game ──TCP──> bridge (127.0.0.1:25565) ──ws/wss──> CDN ──> moonbridge serve ──TCP──> server
//
// Game to server, bytes go through ws.Encoder, the coalescing writer of docs/design.md ("Data
// paths"): packets the game writes while a WebSocket write is in flight share the next binary
// message (at most 64 KiB), and a lone packet leaves at once. Server to game, every read from the
// WebSocket is one write to the game. TCP_NODELAY is on at both ends: the encoder batches, so
// Nagle would only add delay.
//
// A session reads the game's first packet (a handshake, or a pre-1.7 legacy ping) before it
// dials, so that when the WebSocket cannot be opened the player sees why instead of a timeout:
//
//	game sent                 bridge answers
//	handshake, next status    status response whose MOTD names the cause, then a pong
//	handshake, next login     login disconnect naming the cause
//	legacy ping               legacy kick naming the cause
//	nothing in HelloTimeout   nothing: it closes the connection (*HelloTimeoutError, hello.go)
//
// The cause is a *DialError: DNS, TCP, timeout, TLS verification (wrong name, unknown
// authority, expired) or the HTTP status the server refused the upgrade with. When the dial
// succeeds, the handshake bytes and whatever the game sent behind them go out first.
//
// Two modes are opt-in, each taken only by a moonbridge server whose listener has it on (ws's
// package doc draws the Sec-WebSocket-Protocol header that negotiates them): with
// Config.EarlyData the handshake and the packet behind it (Login Start or the status request,
// which the bridge waits for a moment: nextpacket.go) go in the upgrade request, so that the
// server routes and dials while its answer travels back (one round trip less to join); with
// Remote.RawStream the bytes after the upgrade are the game's own, without WebSocket framing
// (no keepalive ping then, and no close reason from the server). A server that does not take
// one falls back: the bytes go after the upgrade, in frames. Each session logs at info, once
// the WebSocket is open, "server connected" with early_data (used, not accepted, refused: the
// upgrade was refused with them and opened again without, off) and raw_stream (on, not
// accepted, off), which its end line repeats.
//
// The upgrade request carries ws.BridgeHeader, the address the game reached the bridge on, so
// that a draining proxy can transfer a 1.20.5+ game back to its own bridge, which opens a new
// WebSocket. When the server closes the WebSocket with a reason, or with a code other than
// normal, the game is shown it in a Disconnect where the stream has room for one (farewell.go):
// nothing sent to the game yet, or, for 1.20.5+, a frame boundary that mc/play's Tracker
// found in the bytes the bridge wrote to the game.
//
// Closing either side closes the other; each session logs one line with the bytes each way,
// its duration, the close reason and the server's close code and reason when it sent them.
// The Minecraft bytes are read and answered with package mc (mc, mc/play), and the pumps and
// the end record are package pipe's (internal/pipe): the same code moonbridge serve runs,
// without the server itself.
package bridge
