package bridge

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// session is one game connection: its first packet, the WebSocket, then two pumps until
// either side ends, which ends both.
type session struct {
	b       *Bridge
	game    net.Conn
	log     zerolog.Logger
	started time.Time
	up      atomic.Int64 // bytes game -> server, handshake included
	down    atomic.Int64 // bytes server -> game

	hello     mc.Hello // what the game sent first, once read
	answerErr error    // why telling the game about a failed dial failed, if it did

	mu     sync.Mutex
	remote *ws.Conn
	reason error // the first reason the session ended; non-nil once it has
}

func newSession(b *Bridge, game net.Conn) *session {
	log := b.log.With().Stringer("game", game.RemoteAddr()).Logger()
	return &session{b: b, game: game, log: log, started: time.Now()}
}

// run drives the session and writes its one log line.
func (s *session) run() {
	defer func() { s.closeBoth(); s.logEnd() }() // every path below has called fail
	setNoDelay(s.game)
	s.game.SetDeadline(time.Now().Add(s.b.cfg.HelloTimeout))
	r := bufio.NewReader(s.game)
	hello, err := mc.ReadHello(r, s.b.cfg.MaxHandshake)
	if err != nil {
		s.fail(&mc.HelloError{Err: err})
		return
	}
	s.hello = hello
	remote, err := s.b.dial(s.b.ctx, s.b.cfg.Remote)
	if err != nil {
		s.refuse(r, classify(err))
		return
	}
	if !s.attach(remote) {
		return
	}
	if hello.Legacy != nil {
		reachable := legacyAnswer("§amoonbridge client: server reachable; join with 1.7 or newer")
		s.fail(errors.Join(ErrLegacyPing, reachable.Serve(r, hello, writeTo(s.game))))
		return
	}
	s.game.SetDeadline(time.Time{})
	s.relay(remote, firstBytes(r, hello.Handshake))
}

// refuse answers the game with why the WebSocket could not be opened; that is the session's
// close reason.
func (s *session) refuse(r *bufio.Reader, cause *DialError) {
	s.game.SetDeadline(time.Now().Add(s.b.cfg.HelloTimeout)) // the dial used up the first one
	s.answerErr = answerFailure(s.game, r, s.hello, cause)
	s.fail(cause)
}

// firstBytes is what the server gets first: the handshake and whatever the game sent behind
// it that is already buffered (Login Start, the status request), taken out of r.
func firstBytes(r *bufio.Reader, hs mc.Handshake) []byte {
	rest, _ := r.Peek(r.Buffered())
	first := append(hs.Raw, rest...)
	r.Discard(len(rest))
	return first
}

// attach makes remote the session's WebSocket, unless the session already ended (Close ran
// during the dial), in which case it closes remote.
func (s *session) attach(remote *ws.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reason != nil {
		remote.CloseWithCode(ws.CloseGoingAway, s.reason.Error())
		return false
	}
	s.remote = remote
	return true
}

// fail records reason, if it is the first, and closes both sides, which ends both pumps.
func (s *session) fail(reason error) {
	s.mu.Lock()
	if s.reason == nil {
		s.reason = reason
	}
	s.mu.Unlock()
	s.closeBoth()
}

// closeBoth closes the game connection and the WebSocket, telling the server the reason.
func (s *session) closeBoth() {
	s.mu.Lock()
	remote, reason := s.remote, s.reason
	s.mu.Unlock()
	s.game.Close()
	if remote != nil {
		remote.CloseWithCode(closeCode(reason), reason.Error())
	}
}

func closeCode(reason error) ws.CloseCode {
	if errors.Is(reason, ErrShutdown) {
		return ws.CloseGoingAway
	}
	return ws.CloseNormal
}

// logEnd writes the session's one line: a warning when the WebSocket could not be opened.
func (s *session) logEnd() {
	s.mu.Lock()
	reason := s.reason
	s.mu.Unlock()
	var dialErr *DialError
	refused := errors.As(reason, &dialErr)
	level := zerolog.InfoLevel
	if refused {
		level = zerolog.WarnLevel
	}
	end := s.log.WithLevel(level)
	if refused {
		end.Str("cause", string(dialErr.Cause)).AnErr("dial_error", dialErr.Err).AnErr("answer_error", s.answerErr)
	}
	if hs := s.hello.Handshake; hs.NextState != 0 { // zero before the hello and for a legacy ping
		end.Str("host", hs.Host).Stringer("next", hs.NextState)
	}
	end.Int64("bytes_up", s.up.Load()).Int64("bytes_down", s.down.Load()).
		Dur("duration", time.Since(s.started)).Str("close_reason", reason.Error()).Msg("session ended")
}

func setNoDelay(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true) // Go's default, said out loud: the encoder batches, not Nagle
	}
}
