package relay

import (
	"context"
	"time"
)

// HandOver stops accepting because another process now accepts on the same listening sockets
// (an upgrade: cmd/moonbridge passed them to it before calling this), so closing them here
// refuses no connection. The sessions open stay and run on, as do connections accepted before
// the close; from now on a Reload is refused, health is not ready, and a session that ends
// counts as ended by itself in a later Drain's result. It returns once the accept loops have
// ended, so that WaitForSessions counts every connection accepted here, with how many sessions
// stay.
func (s *Server) HandOver() int {
	s.handedOver.Store(true)
	s.mu.Lock()
	listeners := s.listeners
	for _, ln := range listeners {
		ln.tcp.Close()
	}
	s.mu.Unlock()
	for _, ln := range listeners {
		<-ln.accepted
	}
	return s.sessionCount()
}

// WaitForSessions returns, after a HandOver, once no client connection is open here or ctx
// ends, with how many are open: sessions, and connections accepted before the hand-over that
// are still being set up (closing those at the drain would reset them). Without a HandOver it
// returns at once.
func (s *Server) WaitForSessions(ctx context.Context) int {
	tick := time.NewTicker(openPoll)
	defer tick.Stop()
	for {
		open := s.openConnections()
		if open == 0 || ctx.Err() != nil || !s.handedOver.Load() {
			return open
		}
		select {
		case <-s.empty:
		case <-tick.C: // a connection in set-up that ends wakes nothing
		case <-ctx.Done():
		}
	}
}

// openPoll is how often WaitForSessions looks again.
const openPoll = 50 * time.Millisecond

// openConnections counts client connections from accept to their end: those that hold a slot
// of the total (limits.go) and those accepted that have not asked for one yet.
func (s *Server) openConnections() int {
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	return s.counter.total + int(s.unslotted.Load())
}
