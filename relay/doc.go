// Package relay is moonbridge's server side: how the real client address reaches the proxy
// (PROXY protocol, forwarded headers), and the Server that runs listeners and sessions. The
// Minecraft bytes themselves are package mc's (mc); the pumps and the record of why a
// session ended are package pipe's (internal/pipe), shared with the client bridge.
//
// A Server accepts on each listener, reads a PROXY header from trusted peers,
// sniffs the first bytes (0x16 is wss, an HTTP method and a space is ws, anything else is
// a Minecraft hello) and runs one session per player:
//
//	accept -> limits -> [PROXY] -> sniff -+-> minecraft ---------------------+
//	                                      +-> ws:  net/http upgrade (ws) ----+-> session
//	                                      +-> wss: gossl -> upgrade (ws) ----+
//
//	upgrade (ws, wss): access token and address lists of the path's routes (access.go): 401/403
//	session: hello -> route (host, path) -> the route's access -> dial backends in order
//	         (those up by health check)
//	         -> [PROXY header] + handshake + buffered bytes in one write
//	         -> on Linux (tcp, ws, wss over BoringSSL): both sockets to an event loop
//	            (loop; handover.go, wsloop.go)
//	            else two pumps:  client --read--> one write --> backend
//	                             backend --read into headroom--> one WriteBatch --> client
//	         or, with no backend: the fallback status / login disconnect
//
// A pump does not read again until its write returned, and a loop does not read a side
// again while its last read waits to be written, so a slow side holds back the other and a
// session holds at most one 64 KiB buffer per direction (datapath.go says which is used).
//
// What a connection may start with, before the relay turns into a pipe:
//
//	[PROXY header]  only from a trusted load balancer or CDN (proxyproto.go),
//	                parsed like the Minecraft bytes: mc.ErrNeedMore while
//	                valid but short, an *mc.ProtocolError otherwise
//	hello           a Minecraft handshake or legacy ping (mc.ParseHello)
//	[status state]  answered by the proxy itself when no backend is up
//	                (the Config's Fallback, an mc.Answer)
package relay
