package relay

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/relay/mc"
)

// session is one player's connection: the Minecraft hello, the route, the backend, then two
// pumps until both directions have ended.
type session struct {
	srv      *Server
	down     downstream
	info     *connInfo
	protocol string
	path     string
	log      zerolog.Logger
	started  time.Time
	end      pipe.End // why the session ended; closes the player and the backend

	meters // bytes moved so far, for the end line and the metrics
}

func (s *Server) runSession(ln *listener, protocol string, down downstream, info *connInfo, path string) {
	sess := &session{
		srv: s, down: down, info: info, protocol: protocol,
		path: path, started: time.Now(),
	}
	sess.log = ln.log.With().Str("client", info.client.String()).Str("protocol", protocol).Logger()
	sess.end.Add(func(error) { down.Close() })
	if !s.track(sess) {
		down.Close()
		return
	}
	defer s.untrack(sess)
	sess.run()
}

// run drives the session and logs its one end line.
func (s *session) run() {
	end := s.log.Info()
	defer func() { s.end.Close(); s.logEnd(end) }()
	r := bufio.NewReaderSize(s.down, sniffBufferSize)
	s.down.SetReadDeadline(time.Now().Add(s.srv.limits.HandshakeTimeout))
	hello, err := mc.ReadHello(r, s.srv.limits.MaxHandshakeFrame)
	if err != nil {
		s.abort(&mc.HelloError{Err: err})
		return
	}
	if s.refuseWhenFull(r, hello, end) {
		return
	}
	if hello.Legacy != nil {
		s.abort(s.srv.cfg.Fallback.Serve(r, hello, s.sendAnswer))
		end.Str("answered", "legacy ping")
		return
	}
	hs := hello.Handshake
	end.Str("host", hs.Host).Stringer("next", hs.NextState)
	route, ok := s.srv.router.Match(hs.Host, s.path)
	if !ok {
		s.abort(s.answerUnreachable(r, hello, &NoRouteError{Host: hs.Host, Path: s.path}))
		return
	}
	first, buffered := s.firstBytes(r, hs, route)
	backend, chosen, err := dialRoute(s.srv.ctx, route, s.srv.limits.DialTimeout, s.info.client,
		addrPortOf(s.down.LocalAddr()), first)
	if err != nil {
		s.abort(s.answerUnreachable(r, hello, err))
		return
	}
	r.Discard(buffered)
	end.Str("backend", chosen.Addr)
	s.down.SetReadDeadline(time.Time{})
	s.relay(backend, int64(len(first)), end)
}

// firstBytes is what the backend gets first: the handshake (host rewritten if the route says
// so) and whatever the client sent after it that is already buffered, e.g. Login Start. The
// buffered bytes stay in r until a backend took them, for the fallback to read otherwise.
func (s *session) firstBytes(r *bufio.Reader, hs mc.Handshake, route *Route) (first []byte, buffered int) {
	if route.RewriteHost != "" {
		first = hs.AppendFrame(nil, route.RewriteHost)
	} else {
		first = append([]byte(nil), hs.Raw...)
	}
	rest, _ := r.Peek(r.Buffered())
	return append(first, rest...), len(rest)
}

// answerUnreachable tells the player why there is no server: a status entry or a disconnect.
func (s *session) answerUnreachable(r *bufio.Reader, hello mc.Hello, cause error) error {
	s.log.Warn().Err(cause).Str("host", hello.Handshake.Host).Msg("no backend for session; answering from the fallback")
	if err := s.srv.cfg.Fallback.Serve(r, hello, s.sendAnswer); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// relay runs both pumps until both directions are done; sent is what the backend already got.
func (s *session) relay(backend net.Conn, sent int64, end *zerolog.Event) {
	s.end.Add(func(error) { backend.Close() })
	up := &pipe.Pump{Source: sourceFor(s.down.socket(), s.down.Read), Write: func(buf []byte, n int) error {
		_, err := backend.Write(buf[headroom : headroom+n])
		return err
	}}
	downPump := &pipe.Pump{Source: sourceFor(backend, backend.Read), Write: func(buf []byte, n int) error {
		return s.down.WriteBatch(buf[:headroom+n])
	}}
	up.Bytes.Store(sent) // the backend already has the first bytes: they count as relayed up
	s.start(up, downPump)
	// The backend-to-player pump runs on this goroutine, which would otherwise only wait: two
	// goroutines per session instead of three (a stack less per player).
	upDone := make(chan struct{})
	go func() { defer close(upDone); s.finish(up.Run(), "client", func() { closeWrite(backend) }) }()
	s.finish(downPump.Run(), "backend", func() { s.down.CloseWrite("server closed the connection") })
	<-upDone
	bytesUp, bytesDown := s.relayed()
	end.Int64("bytes_up", bytesUp).Int64("bytes_down", bytesDown)
}

// finish ends one direction: a clean end half-closes the other side, an error aborts both.
func (s *session) finish(err error, side string, halfClose func()) {
	if endedCleanly(err) {
		halfClose()
		return
	}
	s.abort(&pipe.SideError{Side: side, Err: err})
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
func (s *session) logEnd(end *zerolog.Event) {
	reason := s.endReason()
	if s.info.tls != nil {
		state := s.info.tls.State()
		end.Str("tls_provider", state.Provider).Str("tls_version", state.VersionName()).
			Str("tls_cipher", state.CipherSuiteName()).Bool("tls_resumed", state.Resumed)
	}
	end.Dur("duration", time.Since(s.started))
	if reason != nil {
		end.Str("close_reason", reason.Error()).Msg("session ended")
		return
	}
	end.Str("close_reason", "closed normally").Msg("session ended")
}

// NoRouteError means no route matches the client's host and path.
type NoRouteError struct {
	Host, Path string
}

func (e *NoRouteError) Error() string { return "no route for host " + strconv.Quote(e.Host) }
