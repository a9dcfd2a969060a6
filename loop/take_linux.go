package loop

import "golang.org/x/sys/unix"

// Take and Adopt move an established session out of one engine and into another, which may be
// in another process (a binary upgrade hands the sockets over with SCM_RIGHTS). Take detaches
// the session at a boundary between two events where nothing of it is in flight on the loop:
// no bytes held for a slow reader, both streams open. Its codecs keep their state; the caller
// carries it over (a codec that can move says how) and builds equal codecs on the other side.

// Moved is a session between two engines: its sockets, its codecs as Take found them and the
// bytes it has handed on so far.
type Moved struct {
	Client, Backend MovedSide
	Up, Down        int64
}

// MovedSide is one socket of a Moved session. FD belongs to whoever holds the Moved: Take's
// caller must close it (after handing it on), and Adopt takes it over.
type MovedSide struct {
	FD    int
	Codec Codec
}

// Take detaches s from its loop for a move to another engine: its sockets leave the loop (they
// are not closed), OnClose will not run, and the engine counts it no more. It fails, and s runs
// on, with a *NotMovableError while something of s is in flight on the loop; with ErrClosed
// once s has ended or the engine has closed.
func (s *Session) Take() (*Moved, error) {
	reply := make(chan takeReply, 1)
	if !s.sides.owner.Load().post(command{sess: s, take: reply}) {
		return nil, ErrClosed
	}
	r := <-reply
	return r.moved, r.err
}

type takeReply struct {
	moved *Moved
	err   error
}

// take is Take on the loop.
func (l *loop) take(s *Session, reply chan<- takeReply) {
	c := s.sides.client
	if c == nil || s.closed {
		reply <- takeReply{err: ErrClosed}
		return
	}
	// Both streams open and nothing held: both sides are being read, which is where Adopt
	// starts, so what the loop waited for and its timers need not go along.
	if why := notMovable(c); why != "" {
		reply <- takeReply{err: &NotMovableError{Why: why}}
		return
	}
	if _, ok := l.detach(s); !ok {
		reply <- takeReply{err: ErrClosed} // detach ended it: epoll refused
		return
	}
	s.closed, s.released, s.reported = true, true, true
	l.e.sessions.Add(-1)
	up, down := s.Bytes()
	reply <- takeReply{moved: &Moved{
		Client:  MovedSide{FD: c.fd, Codec: c.codec},
		Backend: MovedSide{FD: c.peer.fd, Codec: c.peer.codec},
		Up:      up, Down: down,
	}}
}

// notMovable says why a session whose client side is c cannot be taken now ("" if it can).
func notMovable(c *side) string {
	for _, y := range [2]*side{c, c.peer} {
		switch {
		case y.held != nil:
			return y.which.String() + " has bytes held for it"
		case y.readEOF || y.shutDown || y.left:
			return y.which.String() + "'s stream has ended"
		}
	}
	return ""
}

// Adopt registers a session Take detached in this or another engine, as Register does, from
// its sockets and codecs (m's FDs belong to the engine from now on, also on an error) and
// continues its byte counts. onClose is the session's OnClose here.
func (e *Engine) Adopt(m *Moved, onClose func(Result)) (*Session, error) {
	fds := [2]int{m.Client.FD, m.Backend.FD}
	spec := Spec{Client: Side{Codec: m.Client.Codec}, Backend: Side{Codec: m.Backend.Codec}, OnClose: onClose}
	for _, sd := range []*Side{&spec.Client, &spec.Backend} {
		if sd.Codec == nil {
			sd.Codec = Identity{}
		}
	}
	for _, fd := range fds {
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
			return nil, err
		}
	}
	s := &Session{spec: spec}
	s.up.Store(m.Up) // before its loop counts on
	s.down.Store(m.Down)
	return e.start(s, fds)
}
