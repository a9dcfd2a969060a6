// Package pool is one route's backends as the relay sees them: the order a session tries them
// in (Balance), which of them are up (HealthCheck), the dial that sends a backend its first
// bytes, how many sessions each runs, the backend a wildcard's match names, and the wake of a
// sleeping server (Wake). The relay's Route holds a Pool; the Server attaches it (Attach) and
// runs its checks (Start) while its settings are current.
//
// What a backend gets first, in one write, before the relay turns into a pipe:
//
//	[PROXY header]  v1 or v2 as Backend.ProxyProtocol says (clientaddr.Header.Append):
//	                Relayed with the player's address; Local from a health check
//	handshake       the player's, or with the route's RewriteHost
//	[buffered]      what the player sent after it, e.g. Login Start
//
// A session tries the backends in order until one has taken these bytes, never past that:
//
//	Dial -> dialOrder (failover | round-robin | random | least-connections)
//	     -> skip those down while one is up -> dial, write preamble -> Choice
//	     or a *DialError naming every backend; a login may then Wake the server and Dial again
//
// The series are Metrics': moonbridge_backend_dial_failures_total, moonbridge_backend_dial_seconds
// and moonbridge_wakes_total, counted as they happen, and moonbridge_backend_up (AppendUp).
package pool
