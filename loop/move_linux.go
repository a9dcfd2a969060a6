package loop

import "time"

// A session moves between loops whole, at a boundary between two events: its loop takes both
// sockets out of its epoll set and its timer wheel and posts the session, with what it waited
// for and how long its timers had left, to the other loop, which puts them in its own. Its
// codecs, held bytes and stream states are plain values on the session and go with it; what
// the peers send meanwhile waits in the sockets' buffers, and the new loop's level-triggered
// epoll reports it at once. Commands posted to the old loop for the session are passed on.

// shedOrder is the balancer's: give to the sessions making up share of this loop's weight
// (1: all of them).
type shedOrder struct {
	to    *loop
	share float64
}

// move is a session on its way from one loop to another.
type move struct {
	sess   *Session
	events [2]uint32        // what its loop waited for on the client's and the backend's socket
	timers [2]time.Duration // how long their timers had left; -1: not armed
}

// weigh counts an event of x's session for the balancer (sessionSides.weight).
func (l *loop) weigh(x *side) {
	ss := &x.sess.sides
	if ss.period != l.period {
		ss.weight[0] = 0
		if ss.period+1 == l.period {
			ss.weight[0] = ss.weight[1]
		}
		ss.weight[1], ss.period = 0, l.period
	}
	ss.weight[1]++
}

// shed detaches the sessions that make up o.share of the loop's weight and posts them to o.to;
// if o.to has stopped they stay here.
func (l *loop) shed(o *shedOrder) {
	var all []*Session
	var total float64
	for _, x := range l.sides {
		if x != nil && x.which == Client && !x.sess.closed {
			all = append(all, x.sess)
			total += weight(x.sess, l.period)
		}
	}
	var moved []command
	// Moving a share, at least one session stays: all of them would only move the load.
	for i, taken := 0, 0.0; i < len(all) && (o.share >= 1 || taken < o.share*total && i < len(all)-1); i++ {
		taken += weight(all[i], l.period)
		if m, ok := l.detach(all[i]); ok {
			moved = append(moved, command{sess: all[i], moved: m})
		}
	}
	if len(moved) == 0 {
		return
	}
	if !o.to.postAll(moved) {
		for _, c := range moved {
			l.current = c.sess
			l.attach(c.moved)
		}
		return
	}
	for _, c := range moved {
		c.sess.sides.owner.Store(o.to) // after the post: what reaches o.to for it comes behind it
	}
	l.e.moves.Add(uint64(len(moved)))
}

// weight is s's events in the current and the last period, plus one, so that sessions without
// events are shared out by count.
func weight(s *Session, period uint32) float64 {
	w := s.sides.weight
	switch {
	case s.sides.period == period:
		return float64(w[0]) + float64(w[1]) + 1
	case s.sides.period+1 == period:
		return float64(w[1]) + 1
	}
	return 1
}

// detach takes s's sockets out of the loop; false (and s ended) if epoll refused.
func (l *loop) detach(s *Session) (*move, bool) {
	m := &move{sess: s}
	c := s.sides.client
	for i, y := range [2]*side{c, c.peer} {
		m.events[i] = y.events
		if err := l.watch(y, 0); err != nil {
			l.current = s
			l.fail(y, "epoll", err)
			l.current = nil
			return nil, false
		}
	}
	for i, y := range [2]*side{c, c.peer} {
		m.timers[i] = l.wheel.left(&y.timer, time.Now())
		l.wheel.remove(&y.timer)
		l.sides[y.fd] = nil
	}
	l.count.Add(-1)
	return m, true
}

// attach puts a moved session's sockets into the loop, waiting for what its old loop waited for.
func (l *loop) attach(m *move) {
	c := m.sess.sides.client
	for _, y := range [2]*side{c, c.peer} {
		for len(l.sides) <= y.fd {
			l.sides = append(l.sides, nil)
		}
		l.sides[y.fd] = y
	}
	l.count.Add(1)
	now := time.Now()
	for i, y := range [2]*side{c, c.peer} {
		if m.timers[i] >= 0 {
			l.wheel.add(&y.timer, m.timers[i], now)
		}
		if err := l.watch(y, m.events[i]); err != nil {
			l.fail(y, "register", err)
			return
		}
	}
}
