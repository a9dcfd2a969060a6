package loop

import "runtime/debug"

// A session's work on a loop runs under a guard: a panic in it (a codec's bug, a Send's fill,
// an OnClose) ends that session with a *PanicError, and the loop goes on with the rest. The
// guard is one deferred recover per batch of events or commands (set up again after a panic),
// and one per timer that fires (seconds apart per session): nothing per byte or per event.
// l.current names the session whose work runs; a panic while it is nil is the loop's own bug,
// and goes on up.

// each runs do(0) ... do(n-1) under the guard; do sets l.current.
func (l *loop) each(n int, do func(i int)) {
	for from := 0; from < n; {
		from = l.guarded(from, n, do)
	}
}

// guarded runs do(from) ... do(n-1) and returns where to go on: n, or the index after the one
// that panicked.
func (l *loop) guarded(from, n int, do func(int)) (next int) {
	defer l.recoverSession()
	for next = from; next < n; {
		next++
		do(next - 1)
	}
	l.current = nil
	return n
}

// fireTimer is the wheel's fire: a side's tick, under a guard of its own, since a panic that
// left the wheel's firing list half walked would lose the timers still on it.
func (l *loop) fireTimer(t *timer[*side]) {
	defer l.recoverSession()
	l.current = t.owner.sess
	l.tick(t.owner)
	l.current = nil
}

// recoverSession is the guard's deferred call: it ends the current session after a panic.
func (l *loop) recoverSession() {
	r := recover()
	if r == nil {
		return
	}
	s := l.current
	l.current = nil
	if s == nil {
		panic(r)
	}
	l.e.panics.Add(1)
	l.endPanicked(s, &PanicError{Value: r, Stack: debug.Stack()})
}

// endPanicked ends s, whatever step its end had reached: the panic may have come from its
// codecs' last words or from OnClose itself (which then does not run again). A panic of
// OnClose here, on top of the first, is dropped: the session is over either way.
func (l *loop) endPanicked(s *Session, err *PanicError) {
	defer func() { _ = recover() }()
	s.closed = true
	l.closeSockets(s)
	l.report(s, err)
}
