package relay

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/cfb8"
	"github.com/moonbridge/moonbridge/mc/play"
	"github.com/moonbridge/moonbridge/relay/moved"
	"github.com/moonbridge/moonbridge/ws"
)

// The new process's side of a move (movesession_linux.go is the old one's): a session read from
// its record, counted and listed here, then run on this process's loops.

// Adoption is a session the new process read from the old one's record, counted and listed
// here, not yet running: Run starts it once the old process has been told it is taken, Cancel
// forgets it when that could not be said.
type Adoption struct {
	sess   *session
	rec    moved.Record
	fds    [2]int
	client loop.Codec
	free   func() // frees the client codec's TLS session (a no-op without one)
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
	defer clear(rec.LoginCipher)
	if rec.Transport != string(Minecraft) && rec.Transport != string(WS) && rec.Transport != string(WSS) {
		return nil, fmt.Errorf("a %s session: this binary moves raw Minecraft, ws and wss sessions only", rec.Transport)
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
	mover, err := movedMover(rec)
	if err != nil {
		return nil, err
	}
	log := s.listenerLog(rec.Listener)
	codec, free, err := s.movedClientCodec(rec, log)
	if err != nil {
		return nil, err
	}
	login, codec, err := movedLogin(rec, route, codec)
	if err != nil {
		free()
		return nil, err
	}
	a := &Adoption{sess: s.movedSession(rec, client, route, login, log), rec: rec, fds: fds, client: codec, free: free}
	a.sess.mover = mover
	if !s.track(a.sess) {
		a.sess.end.Close()
		a.sess.info.release()
		a.freeKeys()
		return nil, errors.New("this process is shutting down")
	}
	return a, nil
}

// freeKeys frees what holds the session's keys here, once it runs nowhere here: its TLS
// session and its login's cipher.
func (a *Adoption) freeKeys() {
	a.free()
	a.sess.login.CloseCipher()
}

// movedClientCodec is the player side's codec rec describes: a WebSocket codec of this
// process's settings in the state the old one's was in, on the TLS session carried on from the
// old one's keys for wss, or none (the TLS records alone for wss) for a plain stream, logging
// to log; and what frees that TLS session (a no-op without one).
func (s *Server) movedClientCodec(rec moved.Record, log zerolog.Logger) (loop.Codec, func(), error) {
	inner, err := s.movedTLS(rec)
	if err != nil {
		return nil, nil, err
	}
	free := func() {}
	if inner != nil {
		free = inner.Free
	}
	cfg := s.settings().WebSocket.Conn
	cfg.Logger = log
	codec, err := movedWSCodec(rec, cfg, inner)
	if err != nil {
		free()
		return nil, nil, err
	}
	return codec, free, nil
}

// movedLogin is the login the proxy ran for rec's player (nil for a login the backend ran) and
// the player side's codec: codec, under the player's cipher carried on from the record's state
// when the login was online. The cipher runs in the route's implementation here (login.cipher),
// Go's when the route no longer runs logins: the session goes on as it began either way.
func movedLogin(rec moved.Record, route *Route, codec loop.Codec) (*auth.Player, loop.Codec, error) {
	if !rec.ProxyLogin {
		return nil, codec, nil
	}
	login := &auth.Player{Protocol: rec.Protocol}
	if len(rec.LoginCipher) == 0 { // offline: no cipher
		return login, codec, nil
	}
	impl := cfb8.ImplGo
	if route.Login != nil && route.Login.CipherImpl != "" {
		impl = route.Login.CipherImpl
	}
	enc, dec, err := auth.UnmarshalCipher(impl, rec.LoginCipher)
	if err != nil {
		return nil, nil, err
	}
	login.Enc, login.Dec = enc, dec
	return login, auth.NewLoopCodec(codec, enc, dec), nil
}

// movedWSCodec is the codec over inner (TLS, or nil) that rec's client state describes.
func movedWSCodec(rec moved.Record, cfg ws.Config, inner gossl.LoopCodec) (loop.Codec, error) {
	if rec.Transport == string(Minecraft) || rec.RawStream {
		switch {
		case len(rec.ClientState) > 0:
			return nil, errors.New("codec state for a plain stream")
		case inner != nil:
			return inner, nil
		}
		return loop.Identity{}, nil
	}
	var under loop.Codec
	if inner != nil {
		under = inner
	}
	codec := wsLoopCodec(ws.NewLoopState(cfg), under)
	if err := codec.RestoreState(rec.ClientState); err != nil {
		return nil, err
	}
	return codec, nil
}

// movedTLS is the TLS session a wss record's state carries on, on this process's TLS server
// (the aead record layer); nil for a session without TLS. The record's copy of the keys is
// cleared.
func (s *Server) movedTLS(rec moved.Record) (gossl.LoopCodec, error) {
	defer clear(rec.TLSState)
	switch {
	case rec.Transport != string(WSS) && len(rec.TLSState) > 0:
		return nil, errors.New("TLS state for a session without TLS")
	case rec.Transport != string(WSS):
		return nil, nil
	case s.settings().TLS == nil:
		return nil, errors.New("a wss session, and this process has no TLS")
	}
	return s.settings().TLS.ResumeMoved(rec.TLSState)
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

// movedSession builds the session rec describes, with the login the proxy ran for it (nil:
// the backend's) and the logger of its listener, holding its slots.
func (s *Server) movedSession(rec moved.Record, client netip.AddrPort, route *Route, login *auth.Player, log zerolog.Logger) *session {
	sess := &session{srv: s, protocol: rec.Transport, started: rec.Since, conf: s.settings(), log: log, login: login}
	sess.info = &connInfo{peer: client, client: client, country: rec.Country, earlyData: rec.EarlyData, rawStream: rec.RawStream}
	if rec.Subject != "" || rec.TokenKey != "" {
		sess.info.claims = &access.Claims{Subject: rec.Subject, KeyID: rec.TokenKey}
	}
	sess.info.bridge, _ = netip.ParseAddrPort(rec.Bridge) // "": none
	if rec.Transport == string(WSS) {                     // carried on here with the aead record layer (movedTLS)
		sess.info.movedTLS = &gossl.ConnState{Provider: gossl.ProviderBoringSSL, Version: rec.TLSVersion,
			CipherSuite: rec.TLSCipher, Resumed: rec.TLSResumed, RecordLayer: gossl.RecordLayerAEAD.String()}
	}
	sess.info.freeTotal = s.counter.holdConnection(client.Addr().Unmap())
	sess.line = endLine{host: rec.Host, next: mc.NextState(rec.Next), greeted: true, backend: rec.Backend, relayed: true}
	sess.player.protocol = rec.Protocol
	if rec.Player != "" {
		sess.player.setName(rec.Player, rec.UUID, login != nil && login.Enc != nil) // online: vouched for
	}
	label := route.Label()
	sess.routeLabel.Store(&label)
	sess.joined.Store(rec.Joined)
	sess.transferIn = rec.TransferIn
	for _, release := range s.counter.holdRoute(route, client.Addr(), sess.line.next != mc.NextStatus) {
		sess.end.Add(func(error) { release() })
	}
	if chosen, ok := route.pool.Chosen(rec.Backend); ok { // counted there, as a dial here would
		untrack := chosen.Track()
		sess.end.Add(func(error) { untrack() })
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
	ls, err := sess.srv.engine.Adopt(m, sess.loopEnded(0, a.free))
	if err != nil { // the engine closed both sockets
		err = fmt.Errorf("upgrade: starting the moved session on an event loop: %w", err)
		sess.info.release()
		sess.endHere(err)
		a.freeKeys()
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
	a.freeKeys()
}

// ID is the session's id here, for the log.
func (a *Adoption) ID() string { return strconv.FormatUint(a.sess.id, 10) }
