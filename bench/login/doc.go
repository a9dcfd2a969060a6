// Package login is the offline Minecraft 1.7.10 login the benchmark's two ends play: the bench
// client sends it, the fake backend checks and answers it. The frames themselves are built and
// split with package mc, the same codec the proxy parses with:
//
//	frame  = VarInt(length of what follows) | VarInt(packet id) | fields
//
// An offline login, as the fake backend and the bench client play it:
//
//	client                                   backend
//	handshake (next state 2) + Login Start ->
//	                                       <- Login Success, Join Game, Position And Look (S08)
//	Position And Look (C06)                ->
//	                                       <- the profile's login burst (modded: 70 x 30,000 B S3F)
//	play: the profile's round trips
//
// Set Compression is never sent: frames stay uncompressed, as the Java MoonBridge's benchmark
// had them (docs/design.md, "Where this comes from").
package login
