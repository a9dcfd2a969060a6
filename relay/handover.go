package relay

import (
	"errors"
	"fmt"
	"net"

	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/play"
)

// toLoop hands an established session to the server's event loops, when it has them and the
// player's side can go there; handled false: the caller runs the pumps. Once the loop owns the
// session (onLoop), no goroutine belongs to it: its OnClose (loopEnded) logs the end line,
// counts it and untracks it. A session the loop refused (both sockets are closed then) ends
// with the reason on the caller's goroutine.
func (s *session) toLoop(backend net.Conn, sent int64) (handled, onLoop bool) {
	if s.srv.engine == nil {
		return false, false
	}
	s.start(func() (int64, int64) { return sent, 0 }) // the first bytes, until the loop counts
	player, ok, err := s.down.loopSide()
	switch {
	case err != nil:
		return true, s.refused(err)
	case !ok:
		return false, false
	}
	if s.login != nil && s.login.Enc != nil {
		s.decrypt(player.Pending) // stream bytes, still encrypted: the codec carries on after them
		player.Codec = auth.NewLoopCodec(player.Codec, s.login.Enc, s.login.Dec)
	}
	back := loop.Side{Conn: backend, Codec: s.backendCodec()}
	spec := loop.Spec{Client: player.Side, Backend: back, OnClose: s.loopEnded(sent, player.free)}
	ls, err := s.srv.engine.Register(spec)
	if err != nil {
		if player.free != nil {
			player.free()
		}
		return true, s.refused(fmt.Errorf("handing the session to an event loop: %w", err))
	}
	s.runsOn(ls, sent)
	// The loop owns both sockets now: forget the connections that wrapped them (a WebSocket
	// connection, a TLS one's Go side, net.Conns), which a running session need not keep.
	s.end.Handover()
	s.down = nil
	// Server.Close ends sessions through s.end; the loop's own end needs no second close. One
	// closer for that and the limit slots: an idle session keeps it for its whole life.
	s.end.Add(s.closeOnLoop)
	return true, true
}

// runsOn makes ls the session's loop session: what Close ends, the byte counts read (which add
// sent, what the backend got before the loop took the session) and a mover's packets go to.
func (s *session) runsOn(ls *loop.Session, sent int64) {
	s.loopSession.Store(ls)
	s.start(func() (int64, int64) { up, down := ls.Bytes(); return sent + up, down })
	if m := s.mover; m != nil {
		s.startMoves(func(build func(*play.Tracker) []byte, done func(bool)) { m.sendOnLoop(ls, build, done) })
	}
}

// closeOnLoop is a loop session's closer: it ends the session on its loop, unless it has ended
// there, and gives back the connection's limit slots (closing a detached WebSocket leaves its
// socket, and the connection under it that would give them back, alone).
func (s *session) closeOnLoop(reason error) {
	if !s.loopDone.Load() {
		s.loopSession.Load().Close(reason)
	}
	s.info.release()
}

// refused ends a session whose handover failed (its player's connection is closed) with err,
// on the caller's goroutine; onLoop is false.
func (s *session) refused(err error) (onLoop bool) {
	s.abort(err)
	s.info.release() // a detached connection's slots are not given back when it is closed
	return false
}

// loopEnded is a loop session's OnClose: on the loop goroutine, once, when the session ended
// there. It must not block: it gives back what the session holds (limit slots, the route's
// count), logs the one end line and moves the session into the totals.
func (s *session) loopEnded(sent int64, free func()) func(loop.Result) {
	return func(r loop.Result) {
		if free != nil {
			defer free() // after the end line, which reads the TLS state
		}
		s.loopDone.Store(true)
		up, down := sent+r.Up, r.Down
		s.start(func() (int64, int64) { return up, down })
		if r.Err == nil {
			s.noteCleanEnd(r.FirstEnd.String())
		}
		if pe := (*loop.PanicError)(nil); errors.As(r.Err, &pe) {
			logPanic(s.log, pe.Value, pe.Stack)
		}
		s.abort(endReason(r.Err))
		s.end.Close()
		s.logEnd()
		s.login.CloseCipher() // the loop calls the codec no more
		s.endMoves()
		s.srv.untrack(s)
	}
}

// endReason turns a loop's close reason into the relay's, so that the end line and the
// outcome label read as on the goroutine path: shutdown as shutdown (a failed side is a
// *pipe.SideError on both).
func endReason(err error) error {
	if errors.Is(err, loop.ErrShutdown) {
		return errShutdown
	}
	return err
}

// backendCodec is the backend side's codec on a loop: it reads the player's name while it is
// not known, and puts the proxy's packets into the stream to the player when it has a mover.
func (s *session) backendCodec() loop.Codec {
	var c loop.Codec = loop.Identity{}
	if s.player.want {
		c = playerNameCodec{p: &s.player}
	}
	if s.mover != nil {
		c = moverCodec{Codec: c, m: s.mover}
	}
	return c
}

// playerNameCodec is the backend side's codec while the player's name is not known yet: it
// reads the name from the stream the loop hands the backend, as the up pump's write does.
type playerNameCodec struct {
	loop.Identity
	p *playerName
}

func (c playerNameCodec) Seal(buf []byte, start int, _ []byte) ([]byte, error) {
	c.p.feed(buf[start:])
	return buf[start:], nil
}
