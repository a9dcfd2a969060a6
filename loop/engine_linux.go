package loop

import (
	"cmp"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported says whether this system has event loops.
const Supported = true

// Engine is N loops, each on a goroutine of its own, sharing out the sessions registered.
type Engine struct {
	cfg       Config
	loops     []*loop
	sessions  atomic.Int64
	held      atomic.Int64
	panics    atomic.Uint64
	moves     atomic.Uint64
	period    atomic.Uint32 // the balancer's readings so far: session weights are per period
	running   sync.WaitGroup
	closeOnce sync.Once
	done      chan struct{} // closed by Close: the balancer stops
}

// New starts cfg.Loops loops.
func New(cfg Config) (*Engine, error) {
	e := &Engine{cfg: cfg.withDefaults(), done: make(chan struct{})}
	for range e.cfg.Loops {
		l, err := newLoop(e)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.loops = append(e.loops, l)
		e.running.Add(1)
		go func() {
			defer e.running.Done()
			l.run()
		}()
	}
	if e.cfg.balanced() {
		e.running.Add(1)
		go func() {
			defer e.running.Done()
			e.balance()
		}()
	}
	return e, nil
}

// Register hands an established session to the loop with the fewest sessions. Both Conns are
// closed when it returns (the loop owns dups of their sockets), also on an error; OnClose runs
// only for a session Register accepted.
func (e *Engine) Register(spec Spec) (*Session, error) {
	fds, err := e.take(&spec)
	if err != nil {
		return nil, err
	}
	return e.start(&Session{spec: spec}, fds)
}

// start gives s, whose sockets are fds, to a loop.
func (e *Engine) start(s *Session, fds [2]int) (*Session, error) {
	l := e.pick()
	s.post, s.send = e.closeLater, e.sendLater
	s.sides.owner.Store(l)
	e.sessions.Add(1)
	l.count.Add(1)
	if !l.post(command{sess: s, fds: fds, adopt: true}) {
		e.sessions.Add(-1)
		l.count.Add(-1)
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, ErrClosed
	}
	return s, nil
}

// take checks spec, copies its pending bytes (the caller's buffers are its own again when
// Register returns) and detaches both sockets.
func (e *Engine) take(spec *Spec) ([2]int, error) {
	fds := [2]int{-1, -1}
	sides := [2]*Side{&spec.Client, &spec.Backend}
	var err error
	for _, sd := range sides {
		if sd.Codec == nil {
			sd.Codec = Identity{}
		}
		if len(sd.Pending) > e.cfg.BufferSize && err == nil {
			err = &PendingTooLargeError{Len: len(sd.Pending), Max: e.cfg.BufferSize}
		}
		if g, ok := sd.Codec.(Grower); ok && (g.Growth() < 0 || g.Growth() >= e.cfg.BufferSize) && err == nil {
			err = &GrowthError{Growth: g.Growth(), BufferSize: e.cfg.BufferSize}
		}
		sd.Pending = append([]byte(nil), sd.Pending...)
	}
	for i, sd := range sides {
		sc, ok := sd.Conn.(syscall.Conn)
		switch {
		case sd.Conn == nil:
			err = cmp.Or(err, errNotSocket)
		case err != nil:
			sd.Conn.Close()
		case !ok:
			sd.Conn.Close()
			err = errNotSocket
		default:
			fds[i], err = detach(sc, sd.Conn.Close)
		}
	}
	if err != nil {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}
	return fds, err
}

// closeLater and sendLater ask the loop that has s now; a loop that gave s up since passes
// the command on (loop.command).
func (e *Engine) closeLater(s *Session, reason error) {
	s.sides.owner.Load().post(command{sess: s, reason: reason})
}

func (e *Engine) sendLater(s *Session, fill func() []byte) {
	s.sides.owner.Load().post(command{sess: s, fill: fill})
}

// Close ends every session with ErrShutdown (their OnClose runs) and waits for the loops to
// exit. Register fails with ErrClosed from then on.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		close(e.done)
		for _, l := range e.loops {
			l.post(command{shutdown: true})
		}
		e.running.Wait()
	})
	return nil
}

// Stats reads the engine's gauges.
func (e *Engine) Stats() Stats {
	st := Stats{Loops: len(e.loops), Sessions: e.sessions.Load(), Held: e.held.Load(),
		Panics: e.panics.Load(), Moves: e.moves.Load()}
	st.PerLoop = make([]int64, len(e.loops))
	if e.cfg.Placement == Pack {
		st.Busy = make([]float64, len(e.loops))
	}
	for i, l := range e.loops {
		st.Wakeups += l.wakeups.Load()
		st.PerLoop[i] = l.count.Load()
		if st.Busy != nil {
			st.Busy[i] = float64(l.load.Load()) / 1000
		}
	}
	return st
}

// sessionSides is what a Session's loop knows of it.
type sessionSides struct {
	client *side                // its peer is the backend's side; nil until the loop adopted the session
	owner  atomic.Pointer[loop] // the loop that has the session, or is about to (a move)
	// weight is the events of the session's sockets in the balancer's period weighed and in the
	// one before (loop-only; shed moves the heaviest share it is asked for).
	weight [2]uint32
	period uint32 // the period weight[1] counts
}
