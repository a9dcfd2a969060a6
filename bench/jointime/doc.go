// Package jointime times Minecraft joins the way a player waits for them: from the game
// client's TCP connect to Login Success of a 1.21.1 (protocol 767) offline login
// (bench/modern), through whatever a path's dial reaches: the proxy itself over raw TCP, or a
// bridge on the player's machine that goes on over WebSocket.
//
// Run times joins over several paths at several round-trip times, interleaved as docs/design.md
// asks of A/B runs: per RTT (the cell), rounds in which every path makes its joins one after
// another, the starting path rotating from round to round (bench/ab's Order). A round is a
// pair: each path's median join of the round against the first path's of the same round.
//
//	cell (RTT)  round 1: raw ×J, ws ×J, wss ×J    round 2: ws ×J, wss ×J, raw ×J    ...
//
// Join time grows by one RTT per round trip on the path, so Summarize gives every path's
// median and its difference from the first path both in milliseconds and in RTTs, and across
// the cells a least-squares line: its slope is the path's round trips to Login Success, its
// intercept what the path costs besides (CPU: the TLS handshake, the processes' own work).
package jointime
