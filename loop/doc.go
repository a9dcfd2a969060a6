// Package loop runs established sessions on event loops (docs/design.md, "Data paths").
//
// The slow steps of a session (accept, sniffing, TLS handshake, HTTP upgrade, Minecraft hello,
// routing, backend dial) stay on goroutines. Once both sockets are up, Engine.Register takes
// them away from Go's poller and gives the pair to one of N loops; no goroutine, stack or timer
// belongs to the session any more.
//
// One loop, one goroutine, one epoll set (level-triggered; the spike record
// bench/results/2026-11-30-loop-spike.md says why), one shared read buffer:
//
//	epoll_wait ─► socket A readable
//	   read(A) ──► buf[Headroom:]            one read per readiness event
//	   A.codec.Open(in place)                ws: unmask and gather; TLS: open records
//	   B.codec.Seal(buf, Headroom, out)      ws: header into the headroom; TLS: seal into out
//	   write(B) ──► all taken: done          one write per read
//	            └─► partial: the rest is copied to B's held buffer, A is not read
//	                until B is writable and the held bytes are gone (EPOLLOUT)
//
// A FIN from one side is passed on (the other codec's CloseWrite bytes, then shutdown(SHUT_WR))
// once every byte before it was written; the session ends when both directions have ended, on
// a reset or error of either socket, on a codec's error, or by Session.Close / Engine.Close.
// A side whose stream has ended and that then takes no more (a write fails, or its codec has no
// half-close) has left: what the other side still sends is read and dropped until it ends too,
// for at most Config.Drain, and the session ends cleanly.
// Its OnClose then runs once, on the loop, with the reason and the byte counts.
//
// Keepalive and dead-peer checks run on a per-loop timer wheel (codecs that implement Ticker).
//
// Linux only: on other systems New returns ErrUnsupported and the relay keeps its goroutine
// pumps.
package loop
