// Package pipe is what moonbridge's two ends do alike once a session relays bytes between two
// connections: the server (package relay) between a player and a backend, the client bridge
// between the game and a WebSocket. It holds one direction's copy loop (Pump), the record of
// why a session ended that closes both sides (End), the error that names the side that failed
// (SideError) and the TCP settings both ends use. It knows nothing of Minecraft or WebSocket;
// each end decides what its reads, writes and close reasons are.
package pipe
