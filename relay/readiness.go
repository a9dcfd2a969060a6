package relay

import (
	"errors"
	"sync"
	"sync/atomic"
)

// lifecycle is the part of a Server that health checks read: whether it drains, and whether a
// listener stopped for good.
type lifecycle struct {
	draining atomic.Bool
	// handedOver: another process accepts on the listeners now (upgrade.go); the sessions here
	// run on until they end or a Drain.
	handedOver atomic.Bool
	empty      chan struct{} // one token when the last session ends, for Drain
	failed     chan error    // the first listener failure, for Failed

	healthMu   sync.Mutex
	deadReason string // the listener that stopped for good and why; "" while none did
	drainEnded int    // sessions that ended since the hand-over or the drain, closed ones too
	// drainUnmoved: of drainEnded, the players closed for not leaving on their Transfer
	// (errTransferred): the drain counts them closed, not ended by themselves.
	drainUnmoved int
	drainMoved   atomic.Int64 // Transfers that went out during the drain (drainmoves.go)
}

func newLifecycle() lifecycle {
	return lifecycle{empty: make(chan struct{}, 1), failed: make(chan error, 1)}
}

// Health is what the admin endpoint reports: Live is false once a listener has stopped for
// good (only a restart brings it back); Ready is false as well while the server drains.
type Health struct {
	Live, Ready bool
	Reason      string // why not ready or not live; "" when both are true
}

// Health says whether the server is alive and ready for new players.
func (s *Server) Health() Health {
	s.healthMu.Lock()
	dead := s.deadReason
	s.healthMu.Unlock()
	switch {
	case dead != "":
		return Health{Reason: dead}
	case s.draining.Load():
		return Health{Live: true, Reason: "draining: shutting down"}
	case s.handedOver.Load():
		return Health{Live: true, Reason: "handed over to a new process"}
	}
	return Health{Live: true, Ready: true}
}

// Failed delivers the first error that stopped a listener for good: the process should be
// restarted (cmd/moonbridge drains and exits non-zero, so that systemd's Restart=on-failure or
// an orchestrator starts it again).
func (s *Server) Failed() <-chan error { return s.failed }

// listenerFailed turns health red for good and reports err once on Failed.
func (s *Server) listenerFailed(ln *listener, err error) {
	s.healthMu.Lock()
	if s.deadReason == "" {
		s.deadReason = "listener " + ln.tcp.Addr().String() + " stopped: " + err.Error()
	}
	s.healthMu.Unlock()
	select {
	case s.failed <- &ListenerError{Addr: ln.tcp.Addr().String(), Err: err}:
	default:
	}
}

// ListenerError says that a listener stopped accepting for good.
type ListenerError struct {
	Addr string
	Err  error
}

func (e *ListenerError) Error() string { return "listener " + e.Addr + " stopped: " + e.Err.Error() }
func (e *ListenerError) Unwrap() error { return e.Err }

// sessionEnded is called under mu with the sessions still open and the reason the session
// ended: during a drain, or after a hand-over, it counts the session and wakes the wait for the
// last.
func (s *Server) sessionEnded(open int, reason error) {
	if !s.draining.Load() && !s.handedOver.Load() {
		return
	}
	s.healthMu.Lock()
	s.drainEnded++
	if errors.Is(reason, errTransferred) {
		s.drainUnmoved++
	}
	s.healthMu.Unlock()
	if open == 0 {
		select {
		case s.empty <- struct{}{}:
		default:
		}
	}
}
