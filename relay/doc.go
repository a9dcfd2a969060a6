// Package relay is moonbridge's server: a Server runs listeners (minecraft, ws, wss) and one
// session per player, from the first byte to the relay between the player and a backend, with
// the limits, access rules, logins and metrics on the way. Reload swaps its settings, SetRoutes
// only its routes, Drain and Close end it. The parts that need no Server live below it: who the client really is (PROXY
// header, forwarded headers: relay/clientaddr) and a route's backends (balance, health checks,
// dial, wake: relay/pool). The Minecraft bytes are package mc's; the pumps and the record of why
// a session ended are package pipe's (internal/pipe), shared with the client bridge.
//
// A Server accepts on each listener, reads a PROXY header from trusted peers as the listener's
// ProxyPolicy says, sniffs the first bytes (0x16 is wss, an HTTP method and a space is ws,
// anything else is a Minecraft hello) and runs one session per player:
//
//	accept -> limits -> [PROXY] -> sniff -+-> minecraft ---------------------+
//	                                      +-> ws:  net/http upgrade (ws) ----+-> session
//	                                      +-> wss: gossl -> upgrade (ws) ----+
//
//	upgrade (ws, wss): access token and address lists of the path's routes (access.go): 401/403
//
// A session runs its phases in order (session.run, phases.go); each may answer the player itself
// and end there:
//
//	readHello   a Minecraft handshake or legacy ping (mc.ReadHello) within the handshake clock;
//	            the network's status or login rate (network.go); a full server, status
//	            while draining: answered; a legacy ping goes on as a status ping, answered
//	            from the status cache or a backend in its own form
//	checkAddressBan  a banned client address: the ban's message / the fallback status (banned.go)
//	matchRoute  the route of host and path, its access rules, the wildcard's capture
//	admit       the route's connection limit
//	logIn       the proxy runs the login when the route's auth says so (login.go)
//	checkPlayerBan   a banned name or UUID: the profile of the proxy's login, else Login Start,
//	            waited for while the list bans players (banned.go)
//	seat        a join counts as a player: max_players_per_address, the route's max_players
//	dial        the route's pool: backends in their balance order, those up by health check,
//	            [PROXY header] + handshake + buffered bytes in one write; a login may wake a
//	            sleeping server; status from the cache when the route answers pings itself;
//	            no backend: the fallback status / login disconnect
//	handOver    Velocity forwarding of the verified player, the login's join event
//	relay       on Linux (tcp, ws, wss over BoringSSL): both sockets to an event loop
//	            (loop; handover.go, wsloop.go)
//	            else two pumps:  client --read--> one write --> backend
//	                             backend --read into headroom--> one WriteBatch --> client
//
// A pump does not read again until its write returned, and a loop does not read a side
// again while its last read waits to be written, so a slow side holds back the other and a
// session holds at most one 64 KiB buffer per direction (datapath.go says which is used).
//
// What a connection may start with, before the relay turns into a pipe:
//
//	[PROXY header]  only from a trusted load balancer or CDN (clientaddr.ReadHeader),
//	                parsed like the Minecraft bytes: mc.ErrNeedMore while
//	                valid but short, an *mc.ProtocolError otherwise
//	hello           a Minecraft handshake or legacy ping (mc.ParseHello)
//	[status state]  answered by the proxy itself when no backend is up
//	                (the Config's Fallback, an mc.Answer)
package relay
