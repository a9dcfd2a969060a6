package pipe

import "sync"

// End records why a session ended and closes its sides. The first reason wins: once one
// direction fails, what the other then reports (a read on a closed socket) is only the
// consequence. Recording a reason closes every side, which ends both pumps; a side added after
// the end is closed at once. The zero End is ready to use.
type End struct {
	mu      sync.Mutex
	reason  error
	ended   bool
	closers []func(reason error)
}

// Add registers close to run once when the session ends, with the reason (nil for a clean end).
// If it has ended already, close runs now and Add reports false.
func (e *End) Add(close func(reason error)) bool {
	e.mu.Lock()
	if !e.ended {
		e.closers = append(e.closers, close)
		e.mu.Unlock()
		return true
	}
	reason := e.reason
	e.mu.Unlock()
	close(reason)
	return false
}

// Fail records reason, unless an earlier one was, and closes every side. A nil reason is
// nothing to record: Fail(nil) does nothing, so Fail(step()) ends the session only when the
// step failed.
func (e *End) Fail(reason error) {
	if reason == nil {
		return
	}
	e.mu.Lock()
	if e.reason == nil {
		e.reason = reason
	}
	e.mu.Unlock()
	e.Close()
}

// Close ends the session with the reason recorded so far (nil: it ended cleanly) and closes
// every side that is not closed yet.
func (e *End) Close() {
	e.mu.Lock()
	closers, reason := e.closers, e.reason
	e.closers, e.ended = nil, true
	e.mu.Unlock()
	for _, close := range closers {
		close(reason)
	}
}

// Reason is the first reason recorded, nil while there is none.
func (e *End) Reason() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reason
}
