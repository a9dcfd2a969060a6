package relay

import (
	"sync"
	"sync/atomic"
	"time"
)

// moveAll sends every player the drain can move a Transfer (Config.Transfer); the others drain
// as before. It returns how many Transfers went out within moveWait (a packet partly through
// delays one until the backend has sent its end).
func (s *Server) moveAll() int {
	if !s.settings().Transfer.Enabled() {
		return 0
	}
	return putInAll(s.sessionList(), moveWait, s.moveOne)
}

// moveOne asks sess's player to move, counting the outcome; false when it cannot be moved.
// done runs once: with whether the Transfer went out, or false at once when an earlier request
// moves the session (that one is counted). A Transfer asked for during a drain counts in its
// result, whoever asked: the drain's start, or a session whose relay started after it.
func (s *Server) moveOne(sess *session, done func(sent bool)) bool {
	duringDrain := s.draining.Load()
	switch sess.moveOut(s.settings().Transfer, func(sent bool) {
		s.countMove(sent)
		if sent && duringDrain {
			s.drainMoved.Add(1)
		}
		done(sent)
	}) {
	case moveAlready:
		done(false)
	case moveNotMovable:
		s.transfers.moves.WithLabelValues(transferNotMovable).Inc()
		return false
	}
	return true
}

// tellTheRest sends the players still there at the end of a drain a Disconnect with the
// restarting message, where their stream has room for one, so that they see why instead of
// "connection lost"; it returns how many went out within tellWait.
func (s *Server) tellTheRest() int {
	reason := s.settings().RestartingMOTD
	if reason == "" {
		reason = errShutdown.Error()
	}
	told := putInAll(s.sessionList(), tellWait, func(sess *session, done func(bool)) bool {
		return sess.tell(reason, done)
	})
	s.transfers.moves.WithLabelValues(transferTold).Add(float64(told))
	return told
}

// putInAll runs put (a move or a tell) for each session and waits up to wait for the packets to
// go out; it returns how many did by then.
func putInAll(sessions []*session, wait time.Duration, put func(*session, func(sent bool)) bool) int {
	var wg sync.WaitGroup
	var sent atomic.Int64
	for _, sess := range sessions {
		wg.Add(1)
		var once sync.Once
		done := func(ok bool) {
			once.Do(func() {
				if ok {
					sent.Add(1)
				}
				wg.Done()
			})
		}
		if !put(sess, done) {
			done(false)
		}
	}
	waitGroupFor(&wg, wait)
	return int(sent.Load())
}

// sessionList is the open sessions now.
func (s *Server) sessionList() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		list = append(list, sess)
	}
	return list
}

// waitGroupFor waits for wg, or for d at most.
func waitGroupFor(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
