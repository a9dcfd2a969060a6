package relay

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// session is one player's connection: the Minecraft hello, the route, the backend, then two
// pumps until both directions have ended.
type session struct {
	srv      *Server
	down     downstream
	info     *connInfo
	protocol string
	path     string
	log      zerolog.Logger // the listener's; the end line adds the client and the protocol
	line     endLine        // what the end line will say about the session's start
	started  time.Time
	end      pipe.End   // why the session ended; closes the player and the backend
	conf     *settings  // the settings when the session started; a reload does not change them
	player   playerName // the name from Login Start, for the end line
	// id names the session in the admin API (sessions.go); routeLabel is its route's label
	// once routed (routeName), for its login events (its backend is line.backend) and for
	// readers off the session's goroutine. joined: its join was sent.
	id         uint64
	routeLabel atomic.Pointer[string]
	joined     atomic.Bool
	// cleanEnd is the side whose clean end (EOF) came first, for the end line of a session
	// that ended without an error: "backend" or "client".
	cleanEnd atomic.Value
	// loopDone: the session ran on an event loop and has ended there (handover.go).
	loopDone atomic.Bool
	// loopSession is the session on its event loop, nil on the pumps.
	loopSession atomic.Pointer[loop.Session]
	// login is the login the proxy ran (the route's auth), nil when it passed the login through;
	// its cipher, if any, encrypts the player's side (login.go).
	login *auth.Player
	// mover follows the backend's stream to a joining player of 1.20.5 or later, so that the
	// proxy can put packets in (mover.go); moves is how, once the relay started (transfer.go),
	// nil before and for a session without a mover.
	mover *mover
	moves atomic.Pointer[sessionMoves]
	// transferIn: the player came by a transfer from another server (handshake next state 3);
	// transferCookie: what the check of its cookie before the route found (transferroute.go),
	// CookieNotAsked when there was none.
	transferIn     bool
	transferCookie auth.Cookie
	// quiet: the session was a cheap refusal (refusal.go), counted and sampled there; it has
	// no end line of its own.
	quiet bool

	meters // bytes moved so far, for the end line and the metrics
}

func (s *Server) runSession(ln *listener, protocol string, down downstream, info *connInfo, path string) {
	if !info.startSession() { // the handshake clock ran out first and closed the connection
		down.Close()
		return
	}
	sess := &session{
		srv: s, down: down, info: info, protocol: protocol,
		path: path, started: time.Now(), conf: s.settings(),
	}
	sess.log = ln.log
	sess.end.AddSocket(down.CloseFor)
	if !s.track(sess) {
		down.Close()
		return
	}
	if sess.run() {
		return // the session runs on an event loop now; its end there untracks it
	}
	s.untrack(sess)
}

// run drives the session through its phases (doc.go draws them) and logs its one end line,
// unless it handed the session to an event loop (onLoop), where the session's end logs the line
// (handover.go). A phase that returns false has answered the player or ended the session.
func (s *session) run() (onLoop bool) {
	defer func() {
		if value := recover(); value != nil {
			s.panicked(value)
		}
		if !onLoop {
			s.closeAndLog()
		}
	}()
	o := &opening{r: bufio.NewReaderSize(s.down, sniffBufferSize)}
	if !s.readHello(o) || !s.checkAddressBan(o) || !s.landByCookie(o) || !s.matchRoute(o) || !s.admit(o) || !s.logIn(o) ||
		!s.checkPlayerBan(o) || !s.letIn(o) || !s.seat(o) {
		return false
	}
	backend, ok := s.dial(o)
	if !ok || !s.handOver(o, backend) {
		return false
	}
	return s.relay(backend, int64(len(o.first)))
}

// closeAndLog ends a session that did not go to an event loop: both sides close, the end line
// is written, and the login's cipher freed (both pumps have returned).
func (s *session) closeAndLog() {
	s.traceEnd()
	s.end.Close()
	s.endMoves()
	if !s.quiet {
		s.logEnd()
	}
	s.login.CloseCipher()
}

// firstBytes is what the backend gets first: the handshake (host rewritten if the route says
// so) and whatever the client sent after it that is already buffered, e.g. Login Start. The
// buffered bytes stay in r until a backend took them, for the fallback to read otherwise.
func (s *session) firstBytes(r *bufio.Reader, hs mc.Handshake, route *Route) (first []byte, buffered int) {
	if s.login != nil {
		return s.loginFirstBytes(r, hs, route)
	}
	rest, _ := r.Peek(r.Buffered())
	s.player.feed(rest)
	return append(s.handshakeFor(route, hs), rest...), len(rest)
}

// dialRequest asks the route's pool for a backend that takes first, for the player's address.
func (s *session) dialRequest(capture string, first []byte) pool.Request {
	return pool.Request{Capture: capture, Timeout: s.conf.limits.DialTimeout, Client: s.info.client,
		Local: addrPortOf(s.down.LocalAddr()), First: first}
}

// handshakeFor is the handshake frame the route's backend gets: the host rewritten if the
// route says so, else the player's own frame.
func (s *session) handshakeFor(route *Route, hs mc.Handshake) []byte {
	if route.RewriteHost != "" {
		return hs.AppendFrame(nil, route.RewriteHost)
	}
	return append([]byte(nil), hs.Raw...)
}

// answer tells the player, in its own protocol, why there is no server (a status entry or a
// login disconnect), and ends the session with cause; s.line already says what answered. A client
// that leaves after the status without a ping (io.EOF) is no further error.
func (s *session) answer(r *bufio.Reader, hello mc.Hello, a mc.Answer, cause error) {
	if err := a.Serve(r, hello, s.sendAnswer); err != nil && !errors.Is(err, io.EOF) {
		cause = errors.Join(cause, err)
	}
	s.abort(cause)
}

// relay hands the session to an event loop (onLoop) or runs both pumps until both directions
// are done; sent is what the backend already got.
func (s *session) relay(backend net.Conn, sent int64) (onLoop bool) {
	s.traceRelayed()
	s.down.SetReadDeadline(time.Time{})
	s.line.relayed = true
	s.end.AddSocket(func(error) { backend.Close() })
	if handled, onLoop := s.toLoop(backend, sent); handled {
		return onLoop
	}
	up := &pipe.Pump{Source: sourceFor(s.down.socket(), s.down.Read), Write: func(buf []byte, n int) error {
		s.decrypt(buf[headroom : headroom+n])
		s.player.feed(buf[headroom : headroom+n])
		_, err := backend.Write(buf[headroom : headroom+n])
		return err
	}}
	downPump := &pipe.Pump{Source: sourceFor(backend, backend.Read), Write: s.downWrite()}
	up.Bytes.Store(sent) // the backend already has the first bytes: they count as relayed up
	s.start(func() (int64, int64) { return up.Bytes.Load(), downPump.Bytes.Load() })
	// The backend-to-player pump runs on this goroutine, which would otherwise only wait: two
	// goroutines per session instead of three (a stack less per player).
	upDone := make(chan struct{})
	clientRead, backendRead := newSourceEnd(), newSourceEnd()
	go func() {
		defer close(upDone)
		defer func() {
			if value := recover(); value != nil {
				s.panicked(value) // ends the down pump too
			}
		}()
		s.finish(up.Run(), direction{source: "client", sink: "backend", read: clientRead, sinkRead: backendRead,
			halfClose: func() { closeWrite(backend) }, drain: func() { drain(s.down) }})
	}()
	s.finish(downPump.Run(), direction{source: "backend", sink: "client", read: backendRead, sinkRead: clientRead,
		halfClose: func() { s.down.CloseWrite(serverClosed) }, drain: func() { drain(backend) }})
	<-upDone
	return false
}

// downWrite is the down pump's write: to the player, encrypted when the login turned a cipher
// on, and through the mover when the session has one.
func (s *session) downWrite() func(buf []byte, n int) error {
	write := func(buf []byte, n int) error {
		s.encrypt(buf[headroom : headroom+n])
		return s.down.WriteBatch(buf[:headroom+n])
	}
	if s.mover == nil {
		return write
	}
	w := pumpWriter{m: s.mover, write: write}
	s.startMoves(w.send)
	return w.Write
}

// direction is one pump's two sides, by their names on the end line, and what its end does:
// halfClose passes a clean end on to the sink, drain reads and drops what the source still
// sends once the sink has gone. read is where this pump says how its source ended, sinkRead
// where the other pump says how the sink's did.
type direction struct {
	source, sink     string
	read, sinkRead   *sourceEnd
	halfClose, drain func()
}

// finish ends one direction: a clean end half-closes the sink; a failed write to a sink that had
// ended its own stream (a player's WebSocket close, a FIN) is the sink having left, which is no
// error: the source is drained, and the session ends cleanly once it has ended too. Any other
// error aborts both, named after the side that failed.
func (s *session) finish(err error, d direction) {
	clean := endedCleanly(err)
	if clean {
		s.noteCleanEnd(d.source)
	}
	d.read.ended(clean)
	if clean {
		d.halfClose()
		return
	}
	writeErr := errors.As(err, new(*pipe.WriteError))
	if writeErr && s.sinkLeft(d, err) {
		d.drain()
		return
	}
	side := d.source
	if writeErr {
		side = d.sink
	}
	s.abort(&pipe.SideError{Side: side, Err: err})
}

// hasEnded says whether side's stream has ended cleanly: its pump noted it, or, for a
// WebSocket player, its close frame came (noted before the read that saw it returns, so a
// write that fails meanwhile knows).
func (s *session) hasEnded(side string) bool {
	if s.cleanEnd.Load() == side {
		return true
	}
	player, ok := s.down.(wsDownstream)
	return ok && side == "client" && player.PeerClosed()
}

// sinkLeft says, after a write to d's sink failed with err, whether the sink had ended its
// stream first. The other pump may not have read that end yet: a player's FIN followed by its
// reset (a game that closes with the backend's bytes unread) fails this write while the FIN
// still waits in the socket, and which pump runs first is the scheduler's choice. A socket
// whose write failed has its read end at once (the FIN, or EOF once the write took the reset's
// error), so the other pump is waited for, at most loop.DefaultDrain should its read not end.
// A reset that came with no FIN before it fails the write with ECONNRESET (Linux says EPIPE
// when the FIN came first): that sink did not leave, whatever its read says after.
func (s *session) sinkLeft(d direction, err error) bool {
	if s.hasEnded(d.sink) {
		return true
	}
	return !errors.Is(err, syscall.ECONNRESET) && d.sinkRead.endedCleanlyWithin(loop.DefaultDrain)
}

// drain reads and drops what c still sends until it ends, or for at most loop.DefaultDrain (the
// event loops' bound too), so that closing c leaves nothing unread in its socket: the kernel
// would answer that with a reset instead of a FIN.
func drain(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(loop.DefaultDrain))
	io.Copy(io.Discard, c)
}

// endedCleanly: the source ended (EOF) or was closed by the other direction; a failed write is
// never a clean end.
func endedCleanly(err error) bool {
	var we *pipe.WriteError
	return !errors.As(err, &we) && (errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed))
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// abort records reason (the first one wins) and closes both sides, which ends both pumps. A nil
// reason ends nothing, so abort(step()) ends the session only when the step failed.
func (s *session) abort(reason error) { s.end.Fail(reason) }

// endReason is the first error that ended the session, nil for a clean end.
func (s *session) endReason() error { return s.end.Reason() }

// logEnd writes the session's one log line.
func (s *session) logEnd() {
	reason := s.endReason()
	end := s.log.Info().Str("client", s.info.client.String()).Str("protocol", s.protocol)
	s.line.write(end)
	if s.line.relayed {
		up, down := s.relayed()
		end.Int64("bytes_up", up).Int64("bytes_down", down)
	}
	if state, ok := s.info.tlsState(); ok {
		end.Str("tls_provider", state.Provider).Str("tls_version", state.VersionName()).
			Str("tls_cipher", state.CipherSuiteName()).Bool("tls_resumed", state.Resumed).
			Str("tls_record_layer", state.RecordLayer)
	}
	if s.info.earlyData || s.info.rawStream { // the bridge's WebSocket modes (wsmodes.go)
		end.Bool("early_data", s.info.earlyData).Bool("raw_stream", s.info.rawStream)
	}
	if s.info.country != "" {
		end.Str("country", s.info.country)
	}
	if s.player.name != "" {
		end.Str("player", s.player.name)
	}
	if s.info.claims != nil {
		end.Str("subject", s.info.claims.Subject).Str("token_key", s.info.claims.KeyID)
	}
	if s.player.uuid != "" {
		end.Str("player_uuid", s.player.uuid)
	}
	if s.login != nil {
		end.Bool("online", s.login.Enc != nil)
	}
	if moves := s.moves.Load(); moves != nil {
		if to := moves.transferred.Load(); to != nil {
			end.Str("transferred_to", *to)
		}
	}
	s.sendLeave()
	end.Dur("duration", time.Since(s.started))
	if reason != nil {
		end.Str("close_reason", reason.Error()).Msg("session ended")
		return
	}
	end.Str("close_reason", s.cleanEndText()).Msg("session ended")
}

func (s *session) noteCleanEnd(side string) { s.cleanEnd.CompareAndSwap(nil, side) }

// cleanEndText says who ended a session that ended without an error: a backend that closed
// first (a server that kicked the player, or one that was stopped) is not the player leaving.
func (s *session) cleanEndText() string {
	if side, ok := s.cleanEnd.Load().(string); ok {
		return side + " closed the connection"
	}
	return "closed normally"
}

// NoRouteError means no route matches the client's host and path.
type NoRouteError struct {
	Host, Path string
}

func (e *NoRouteError) Error() string { return "no route for host " + strconv.Quote(e.Host) }
