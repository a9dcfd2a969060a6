package relay

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/relay/moved"
	"github.com/moonbridge/moonbridge/ws"
)

// Moving established sessions to the new process of a binary upgrade. What moves: a raw
// Minecraft, ws or wss session on an event loop whose Login Start has been read (its login run
// by the backend, or by the proxy: then with the player's AES/CFB8 state, auth.LoopCodec), with
// the WebSocket codec's state, a wss session's TLS 1.3 record state (gossl.MovableCodec: keys
// and sequence numbers, carried on with the aead record layer) and a 1.20.5+ player's play
// tracker (so a drain or the admin API can still put a Transfer or a Disconnect in), in the
// middle of a message or frame too. Every other session stays in the old process, with its
// reason counted: a TLS session moves only at a clean boundary (gossl's MoveError says why
// not).

// Why a session stays in the old process.
const (
	stayNotOnLoop    = "not on an event loop"
	stayPacketWaits  = "a packet of the proxy's waits to go in"
	stayTransferred  = "a Transfer was sent to it"
	stayNoLoginStart = "Login Start not read yet"
	stayEnded        = "ended during the hand-over"
	stayChannelEnded = "the hand-over channel ended before its turn"
)

// errMoveUnknown ends a session this process let go in a hand-over that did not say whether the
// new process took it.
var errMoveUnknown = errors.New("upgrade: handed to the new process, which did not say whether it took the session")

// MoveSessions offers every session that can move, one after another, to offer: taken off
// its event loop at a boundary where nothing of it is in flight, as its record and its two
// sockets (the player's, the backend's), which offer sends and then leaves open. A session
// offer keeps goes back onto this process's loops with its counts. Call it after HandOver.
func (s *Server) MoveSessions(offer func(record []byte, fds [2]int) MoveOffer) MoveReport {
	r := MoveReport{Stayed: map[string]int{}}
	list := s.sessionList()
	slices.SortFunc(list, func(a, b *session) int { return cmp.Compare(a.id, b.id) })
	stopped := false
	for _, sess := range list {
		why := stayChannelEnded
		if !stopped {
			why, stopped = sess.handOut(offer, &r)
		}
		if why != "" {
			r.Stayed[why]++
		}
	}
	return r
}

// handOut offers one session; why it stays ("" when it moved or was let go), and whether the
// offer said to offer no more.
func (sess *session) handOut(offer func([]byte, [2]int) MoveOffer, r *MoveReport) (why string, stop bool) {
	if why := sess.notMovable(); why != "" {
		return why, false
	}
	m, err := sess.loopSession.Load().Take()
	var nm *loop.NotMovableError
	switch {
	case errors.As(err, &nm):
		return nm.Why, false
	case err != nil:
		return stayEnded, false
	}
	// The loop counts the session no more: what its counts miss is what the backend got before.
	up, _ := sess.relayed()
	sent := up - m.Up
	switch { // read after Take: the loop no longer feeds the player's name or the mover
	case sess.player.want:
		return sess.keep(m, sent, stayNoLoginStart), false
	case sess.mover != nil && sess.mover.pending != nil:
		return sess.keep(m, sent, stayPacketWaits), false
	}
	rec, err := sess.record(m, sent)
	var record []byte
	if err == nil {
		record, err = rec.Append(nil)
	}
	clear(rec.TLSState) // the keys: only the record sent goes on holding them, until below
	clear(rec.LoginCipher)
	if err != nil {
		return sess.keep(m, sent, err.Error()), false
	}
	o := offer(record, [2]int{m.Client.FD, m.Backend.FD})
	clear(record)
	switch o.Fate {
	case MoveTaken:
		closeMoved(m)
		freeKeys(sess, m) // the new process carries its records on; this one wipes its keys
		sess.movedOut()
		r.Moved++
	case MoveUnknown:
		closeMoved(m)
		freeKeys(sess, m)
		sess.letGo()
		r.Unknown++
	default:
		return sess.keep(m, sent, o.Why), o.Stop
	}
	return "", o.Stop
}

// notMovable says why a session cannot move, before it is taken off its loop ("" if it may).
func (sess *session) notMovable() string {
	switch {
	case sess.loopSession.Load() == nil || sess.loopDone.Load():
		return stayNotOnLoop
	case sess.moves.Load() != nil && sess.moves.Load().asked.Load():
		return stayTransferred
	}
	return ""
}

// record is what the new process needs of a session taken off its loop as m, whose backend
// got sent bytes before the loop.
func (sess *session) record(m *loop.Moved, sent int64) (moved.Record, error) {
	state, err := clientState(m.Client.Codec)
	if err != nil {
		return moved.Record{}, err
	}
	tlsState, err := tlsState(m.Client.Codec)
	if err != nil {
		return moved.Record{}, err
	}
	loginCipher, err := loginCipherState(m.Client.Codec)
	if err != nil {
		clear(tlsState)
		return moved.Record{}, err
	}
	k, info := sess.player.knownPlayer(), sess.info
	r := moved.Record{
		Transport: sess.protocol, Listener: listenerOf(m.Client.FD), Route: sess.routeName(),
		Client: info.clientAddr().String(), Host: sess.line.host, Next: uint8(sess.line.next),
		Protocol: sess.player.protocol, Backend: sess.line.backend, Player: k.name, UUID: k.uuid,
		Country: info.country, ClientState: state, TLSState: tlsState, EarlyData: info.earlyData, RawStream: info.rawStream,
		LoginCipher: loginCipher, ProxyLogin: sess.login != nil,
		Joined: sess.joined.Load(), TransferIn: sess.transferIn, Since: sess.started,
		Up: sent + m.Up, Down: m.Down,
	}
	if info.claims != nil {
		r.Subject, r.TokenKey = info.claims.Subject, info.claims.KeyID
	}
	if sess.mover != nil {
		r.Tracker = sess.mover.t.MarshalState()
	}
	if info.bridge.IsValid() {
		r.Bridge = info.bridge.String()
	}
	if st, ok := info.tlsState(); ok {
		r.TLSVersion, r.TLSCipher, r.TLSResumed = st.Version, st.CipherSuite, st.Resumed
	}
	return r, nil
}

// cipherCodec is the player's AES/CFB8 of a login the proxy ran, over the side's own codec
// (auth.LoopCodec).
type cipherCodec interface {
	Inner() loop.Codec
	MarshalCipher() ([]byte, error)
}

// underCipher is the player side's own codec: c, or what a login's cipher wraps.
func underCipher(c loop.Codec) loop.Codec {
	if cc, ok := c.(cipherCodec); ok {
		return cc.Inner()
	}
	return c
}

// loginCipherState is the cipher state of a login the proxy ran (key material), nil without one.
func loginCipherState(c loop.Codec) ([]byte, error) {
	cc, ok := c.(cipherCodec)
	if !ok {
		return nil, nil
	}
	state, err := cc.MarshalCipher()
	if err != nil {
		return nil, fmt.Errorf("the login's cipher: %w", err)
	}
	return state, nil
}

// clientState is the state of the player side's codec for the new process: none for a plain
// stream (or a raw stream over TLS, whose state is tlsState's), the WebSocket parser's for ws
// and wss; a login's cipher is loginCipherState's.
func clientState(c loop.Codec) ([]byte, error) {
	switch c := underCipher(c).(type) {
	case nil, loop.Identity, gossl.LoopCodec:
		return nil, nil
	case *ws.LoopCodec:
		return c.MarshalState()
	}
	return nil, fmt.Errorf("the player's codec %T cannot move", c)
}

// tlsOf is the TLS session under the player side's codec (wss), nil without one.
func tlsOf(c loop.Codec) gossl.LoopCodec {
	c = underCipher(c)
	if w, ok := c.(*ws.LoopCodec); ok {
		c = w.Inner()
	}
	t, _ := c.(gossl.LoopCodec)
	return t
}

// tlsState is the record state of the TLS session under the player side's codec, nil without
// one; an error names why it cannot move now ("wss: " and gossl's reason).
func tlsState(c loop.Codec) ([]byte, error) {
	t := tlsOf(c)
	if t == nil {
		return nil, nil
	}
	mc, ok := t.(gossl.MovableCodec)
	if !ok {
		return nil, fmt.Errorf("wss: the TLS codec %T cannot move", t)
	}
	state, err := mc.MarshalMove()
	if me, ok := errors.AsType[*gossl.MoveError](err); ok {
		return nil, fmt.Errorf("wss: %s", me.Reason)
	}
	return state, err
}

// freeKeys frees what holds the keys of a session the new process carries on (or may): its TLS
// session and its login's cipher.
func freeKeys(sess *session, m *loop.Moved) {
	freeTLS(m.Client.Codec)
	sess.login.CloseCipher()
}

// freeTLS frees the TLS session under the player side's codec, if there is one.
func freeTLS(c loop.Codec) {
	if free := tlsFree(c); free != nil {
		free()
	}
}

// tlsFree is what frees the TLS session under c once its loop session has ended; nil without one.
func tlsFree(c loop.Codec) func() {
	if t := tlsOf(c); t != nil {
		return t.Free
	}
	return nil
}

// listenerOf is the address a player's socket was accepted on: its listener's, or, for a
// listener on every address, the one the player reached.
func listenerOf(fd int) string {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return ""
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)).String()
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port)).String()
	}
	return ""
}

// keep puts a session taken off its loop back onto this process's loops, and returns why.
func (sess *session) keep(m *loop.Moved, sent int64, why string) string {
	ls, err := sess.srv.engine.Adopt(m, sess.loopEnded(sent, tlsFree(m.Client.Codec)))
	if err != nil { // the engine closed both sockets
		sess.endHere(fmt.Errorf("upgrade: putting the session back on an event loop: %w", err))
		freeTLS(m.Client.Codec)
		return why
	}
	sess.runsOn(ls, sent)
	return why
}

// closeMoved closes this process's copies of a moved session's sockets: without a shutdown,
// so the copies in the new process carry the connections on.
func closeMoved(m *loop.Moved) {
	unix.Close(m.Client.FD)
	unix.Close(m.Backend.FD)
}

// movedOut forgets a session the new process runs now: its slots are given back and it is
// untracked, with no end line (the new process writes it) and no count in the totals.
func (sess *session) movedOut() {
	sess.loopDone.Store(true) // its loop session is gone: nothing to close there
	sess.end.Close()
	sess.srv.untrackMoved(sess)
}

// letGo ends a session whose fate the hand-over did not say, here, with its end line.
func (sess *session) letGo() { sess.endHere(errMoveUnknown) }

// endHere ends a session that is on no loop (taken off, or refused by one) with reason.
func (sess *session) endHere(reason error) {
	sess.loopDone.Store(true)
	sess.abort(reason)
	sess.logEnd()
	sess.srv.untrack(sess)
}

// untrackMoved takes a moved session out of the sessions here without counting it as ended.
func (s *Server) untrackMoved(sess *session) {
	s.mu.Lock()
	delete(s.sessions, sess)
	open := len(s.sessions)
	s.mu.Unlock()
	s.live.Done()
	if open == 0 {
		select {
		case s.empty <- struct{}{}:
		default:
		}
	}
}
