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
	closers []closer
}

// closer is what runs when the session ends; socket marks the closer of one of its connections.
type closer struct {
	run    func(reason error)
	socket bool
}

// Add registers close to run once when the session ends, with the reason (nil for a clean end).
// If it has ended already, close runs now and Add reports false.
func (e *End) Add(close func(reason error)) bool { return e.add(closer{run: close}) }

// AddSocket is Add for the closer of one of the session's connections, which Handover forgets.
func (e *End) AddSocket(close func(reason error)) bool {
	return e.add(closer{run: close, socket: true})
}

func (e *End) add(c closer) bool {
	e.mu.Lock()
	if !e.ended {
		e.closers = append(e.closers, c)
		e.mu.Unlock()
		return true
	}
	reason := e.reason
	e.mu.Unlock()
	c.run(reason)
	return false
}

// Handover forgets the socket closers: the session's sockets have a new owner (an event loop)
// that closes them, and what the closers held (the connections, their buffers) can be collected
// while the session runs on. The other closers still run at the end.
func (e *End) Handover() {
	e.mu.Lock()
	defer e.mu.Unlock()
	kept := e.closers[:0]
	for _, c := range e.closers {
		if !c.socket {
			kept = append(kept, c)
		}
	}
	clear(e.closers[len(kept):])
	e.closers = kept
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
	for _, c := range closers {
		c.run(reason)
	}
}

// Reason is the first reason recorded, nil while there is none.
func (e *End) Reason() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reason
}
