package ws

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"
)

// silence is the dead-peer check of docs/design.md ("Keepalive"): it counts consecutive half
// intervals in which the peer sent nothing while it was being read. The goroutine keepalive and
// LoopCodec.Tick both run it.
type silence struct {
	deadAfter int // silent half intervals before the peer counts as dead; 0: never
	halfs     int
}

func newSilence(cfg Config) silence {
	if cfg.DeadPeerIntervals > 0 {
		return silence{deadAfter: 2 * cfg.DeadPeerIntervals}
	}
	return silence{}
}

// pass records one half interval (of length half): heard, something arrived; reading, the
// peer was being read. It returns the error of a dead peer, or nil.
func (s *silence) pass(heard, reading bool, half time.Duration) *DeadPeerError {
	switch {
	case heard:
		s.halfs = 0
	case reading:
		s.halfs++
	}
	if s.deadAfter > 0 && s.halfs >= s.deadAfter {
		return &DeadPeerError{Silent: time.Duration(s.halfs) * half}
	}
	return nil
}

// DeadPeerError: the peer sent no frame for Silent while it was being read. The connection is
// closed with 1001 and Reason.
type DeadPeerError struct{ Silent time.Duration }

func (e *DeadPeerError) Error() string { return "ws: " + e.Reason() }

// Reason is the close frame's reason text.
func (e *DeadPeerError) Reason() string {
	return fmt.Sprintf("no frame from the peer for %s", e.Silent)
}

func (e *DeadPeerError) log(l zerolog.Logger) {
	l.Info().Str("reason", e.Reason()).Msg("ws: closing dead connection")
}
