package relay

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/play"
	"github.com/moonbridge/moonbridge/relay/moved"
	"github.com/moonbridge/moonbridge/ws"
)

// Moving established sessions to the new process of a binary upgrade. What moves now: a raw
// Minecraft or plain ws session on an event loop whose login the backend runs (passed through)
// and whose Login Start has been read, with the WebSocket codec's state and a 1.20.5+ player's
// play tracker (so a drain or the admin API can still put a Transfer or a Disconnect in), both
// in the middle of a message or frame too. Every other session stays in the old process, with
// its reason counted: the TLS state and a login's cipher are not carried over yet.

// Why a session stays in the old process.
const (
	stayNotOnLoop    = "not on an event loop"
	stayWSS          = "wss: TLS state not movable yet"
	stayProxyLogin   = "proxy-run login"
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
	if err != nil {
		return sess.keep(m, sent, err.Error()), false
	}
	o := offer(record, [2]int{m.Client.FD, m.Backend.FD})
	switch o.Fate {
	case MoveTaken:
		closeMoved(m)
		sess.movedOut()
		r.Moved++
	case MoveUnknown:
		closeMoved(m)
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
	case sess.protocol == string(WSS):
		return stayWSS
	case sess.login != nil:
		return stayProxyLogin
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
	k, info := sess.player.knownPlayer(), sess.info
	r := moved.Record{
		Transport: sess.protocol, Listener: listenerOf(m.Client.FD), Route: sess.routeName(),
		Client: info.clientAddr().String(), Host: sess.line.host, Next: uint8(sess.line.next),
		Protocol: sess.player.protocol, Backend: sess.line.backend, Player: k.name, UUID: k.uuid,
		Country: info.country, ClientState: state, EarlyData: info.earlyData, RawStream: info.rawStream,
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
	return r, nil
}

// clientState is the state of the player side's codec for the new process: none for a plain
// stream, the WebSocket parser's for ws.
func clientState(c loop.Codec) ([]byte, error) {
	switch c := c.(type) {
	case nil, loop.Identity:
		return nil, nil
	case *ws.LoopCodec:
		return c.MarshalState()
	}
	return nil, fmt.Errorf("the player's codec %T cannot move", c)
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
	ls, err := sess.srv.engine.Adopt(m, sess.loopEnded(sent, nil))
	if err != nil { // the engine closed both sockets
		sess.endHere(fmt.Errorf("upgrade: putting the session back on an event loop: %w", err))
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

// Adoption is a session the new process read from the old one's record, counted and listed
// here, not yet running: Run starts it once the old process has been told it is taken, Cancel
// forgets it when that could not be said.
type Adoption struct {
	sess   *session
	rec    moved.Record
	fds    [2]int
	client loop.Codec
}

// AdoptSession reads a moved session's record and takes its place here (its route, limit
// slots, the sessions list). An error says why this process refuses it; its sockets are closed
// then (the old process keeps its own copies and runs it on).
func (s *Server) AdoptSession(record []byte, fds [2]int) (*Adoption, error) {
	a, err := s.adoption(record, fds)
	if err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, err
	}
	return a, nil
}

func (s *Server) adoption(record []byte, fds [2]int) (*Adoption, error) {
	rec, err := moved.Parse(record)
	if err != nil {
		return nil, err
	}
	if rec.Transport != string(Minecraft) && rec.Transport != string(WS) {
		return nil, fmt.Errorf("a %s session: this binary moves raw Minecraft and plain ws sessions only", rec.Transport)
	}
	if s.engine == nil {
		return nil, errors.New("this process relays on goroutines (relay.data_path), not on event loops")
	}
	client, err := netip.ParseAddrPort(rec.Client)
	if err != nil {
		return nil, fmt.Errorf("client address %q: %w", rec.Client, err)
	}
	route := s.routeLabelled(rec.Route)
	if route == nil {
		return nil, fmt.Errorf("no route labelled %q in this process's config", rec.Route)
	}
	codec, err := s.movedClientCodec(rec)
	if err != nil {
		return nil, err
	}
	mover, err := movedMover(rec)
	if err != nil {
		return nil, err
	}
	sess := s.movedSession(rec, client, route)
	sess.mover = mover
	if !s.track(sess) {
		sess.end.Close()
		sess.info.release()
		return nil, errors.New("this process is shutting down")
	}
	return &Adoption{sess: sess, rec: rec, fds: fds, client: codec}, nil
}

// movedClientCodec is the player side's codec rec describes: a WebSocket codec of this
// process's settings in the state the old one's was in, or none for a plain stream.
func (s *Server) movedClientCodec(rec moved.Record) (loop.Codec, error) {
	if rec.Transport == string(Minecraft) || rec.RawStream {
		if len(rec.ClientState) > 0 {
			return nil, errors.New("codec state for a plain stream")
		}
		return loop.Identity{}, nil
	}
	cfg := s.settings().WebSocket.Conn
	cfg.Logger = s.listenerLog(rec.Listener)
	codec := wsLoopCodec(ws.NewLoopState(cfg), nil)
	if err := codec.RestoreState(rec.ClientState); err != nil {
		return nil, err
	}
	return codec, nil
}

// movedMover is the mover of a session whose record has a play tracker's state, nil without.
func movedMover(rec moved.Record) (*mover, error) {
	if len(rec.Tracker) == 0 {
		return nil, nil
	}
	t, err := play.NewTracker(rec.Protocol)
	if err != nil {
		return nil, err
	}
	if err := t.RestoreState(rec.Tracker); err != nil {
		return nil, err
	}
	return &mover{t: t, joinHost: rec.Host}, nil
}

// movedSession builds the session rec describes, holding its slots.
func (s *Server) movedSession(rec moved.Record, client netip.AddrPort, route *Route) *session {
	sess := &session{srv: s, protocol: rec.Transport, started: rec.Since, conf: s.settings(), log: s.listenerLog(rec.Listener)}
	sess.info = &connInfo{peer: client, client: client, country: rec.Country, earlyData: rec.EarlyData, rawStream: rec.RawStream}
	if rec.Subject != "" || rec.TokenKey != "" {
		sess.info.claims = &access.Claims{Subject: rec.Subject, KeyID: rec.TokenKey}
	}
	sess.info.bridge, _ = netip.ParseAddrPort(rec.Bridge) // "": none
	sess.info.freeTotal = s.counter.holdConnection(client.Addr().Unmap())
	sess.line = endLine{host: rec.Host, next: mc.NextState(rec.Next), greeted: true, backend: rec.Backend, relayed: true}
	sess.player.protocol = rec.Protocol
	if rec.Player != "" {
		sess.player.setName(rec.Player, rec.UUID, false)
	}
	label := route.Label()
	sess.routeLabel.Store(&label)
	sess.joined.Store(rec.Joined)
	sess.transferIn = rec.TransferIn
	for _, release := range s.counter.holdRoute(route, client.Addr(), sess.line.next != mc.NextStatus) {
		sess.end.Add(func(error) { release() })
	}
	return sess
}

// Run starts the adopted session on this process's loops, its counts going on from the
// record's; an error ends it here with its end line.
func (a *Adoption) Run() error {
	sess := a.sess
	m := &loop.Moved{
		Client:  loop.MovedSide{FD: a.fds[0], Codec: a.client},
		Backend: loop.MovedSide{FD: a.fds[1], Codec: sess.backendCodec()},
		Up:      a.rec.Up, Down: a.rec.Down,
	}
	ls, err := sess.srv.engine.Adopt(m, sess.loopEnded(0, nil))
	if err != nil { // the engine closed both sockets
		err = fmt.Errorf("upgrade: starting the moved session on an event loop: %w", err)
		sess.info.release()
		sess.endHere(err)
		return err
	}
	sess.runsOn(ls, 0)
	sess.end.Add(sess.closeOnLoop)
	return nil
}

// Cancel forgets an adopted session that does not run here (the old process was not told it
// was taken, so it still has it): its slots are given back and its sockets closed here.
func (a *Adoption) Cancel() {
	unix.Close(a.fds[0])
	unix.Close(a.fds[1])
	a.sess.movedOut()
	a.sess.info.release()
}

// ID is the session's id here, for the log.
func (a *Adoption) ID() string { return strconv.FormatUint(a.sess.id, 10) }

// routeLabelled is the current route labelled label, nil if there is none.
func (s *Server) routeLabelled(label string) *Route {
	routes := s.settings().router.routes
	for i := range routes {
		if routes[i].Label() == label {
			return &routes[i]
		}
	}
	return nil
}

// listenerLog is the logger of the listener on addr, as the old process's was (listener.go).
func (s *Server) listenerLog(addr string) zerolog.Logger {
	return s.log.With().Str("listener", addr).Logger()
}
