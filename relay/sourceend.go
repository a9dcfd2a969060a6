package relay

import "time"

// sourceEnd is how the pump that reads one side of a session ended: done is closed once it
// has, and clean (set before) says whether that side's stream ended cleanly (EOF).
type sourceEnd struct {
	done  chan struct{}
	clean bool
}

func newSourceEnd() *sourceEnd { return &sourceEnd{done: make(chan struct{})} }

// ended records how the side's pump ended; called once, by that pump.
func (e *sourceEnd) ended(clean bool) {
	e.clean = clean
	close(e.done)
}

// endedCleanlyWithin waits at most bound for the side's pump to end and says whether its
// stream ended cleanly.
func (e *sourceEnd) endedCleanlyWithin(bound time.Duration) bool {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case <-e.done:
		return e.clean
	case <-timer.C:
		return false
	}
}
