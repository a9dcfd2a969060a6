package relay

import "context"

// HandOver stops accepting because another process now accepts on the same listening sockets
// (an upgrade: cmd/moonbridge passed them to it before calling this), so closing them here
// refuses no connection. The sessions open stay and run on, as do connections accepted before
// the close; from now on a Reload is refused, health is not ready, and a session that ends
// counts as ended by itself in a later Drain's result. It returns how many sessions stay.
func (s *Server) HandOver() int {
	s.handedOver.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ln := range s.listeners {
		ln.tcp.Close()
	}
	return len(s.sessions)
}

// WaitForSessions returns how many sessions are open once none is or ctx ends, after a
// HandOver (without one it returns at once).
func (s *Server) WaitForSessions(ctx context.Context) int {
	if s.handedOver.Load() {
		s.waitForSessions(ctx)
	}
	return s.sessionCount()
}
