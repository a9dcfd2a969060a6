package bridge

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/play"
	"github.com/moonbridge/moonbridge/ws"
)

// session is one game connection: its first packet, the WebSocket, then two pumps until
// either side ends, which ends both.
type session struct {
	b       *Bridge
	game    net.Conn
	log     zerolog.Logger
	started time.Time
	helloBy time.Time // the game's deadline until the relay: Config.HelloTimeout from the start
	up      pipe.Pump // game -> server; its bytes count the handshake
	down    pipe.Pump // server -> game

	hello     mc.Hello // what the game sent first, once read
	modes     modes    // what the WebSocket agreed on, once open (modes.go)
	answerErr error    // why telling the game about a failed dial failed, if it did

	end      pipe.End    // why the session ended; closes the game and the WebSocket
	gameLeft atomic.Bool // the game ended its stream: the WebSocket's closing handshake runs

	// Owned by the down pump's goroutine, read by logEnd once it is done.
	tracker     *play.Tracker  // follows the stream to the game (766+ logins); nil when it cannot
	serverClose *ws.CloseError // the server's close frame, when it sent one the game outlived
	toldGame    bool           // the game got a Disconnect with the server's close reason
}

func newSession(b *Bridge, game net.Conn) *session {
	log := b.log.With().Stringer("game", game.RemoteAddr()).Logger()
	s := &session{b: b, game: game, log: log, started: time.Now()}
	s.end.Add(func(error) { game.Close() })
	return s
}

// run drives the session and writes its one log line.
func (s *session) run() {
	defer func() { s.end.Close(); s.logEnd() }() // every path below has called fail
	pipe.SetNoDelay(s.game)                      // the encoder batches, not Nagle
	s.helloBy = time.Now().Add(s.b.cfg.HelloTimeout)
	s.game.SetDeadline(s.helloBy)
	r := bufio.NewReader(s.game)
	hello, err := s.readHello(r)
	if err != nil {
		s.fail(err)
		return
	}
	s.hello = hello
	remote, err := s.dialServer(r)
	if err != nil {
		s.refuse(r, classify(err, s.b.cfg.SettingNames))
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
	first := firstBytes(r, hello.Handshake)
	if remote.EarlyData() { // the server has them from the upgrade request
		s.up.Bytes.Add(int64(len(first)))
		first = nil
	}
	s.relay(remote, first)
}

// remoteConfig is the bridge's DialConfig with ws.BridgeHeader naming the address the game
// reached the bridge on, which a draining proxy transfers the game back to.
func (s *session) remoteConfig() ws.DialConfig {
	cfg := s.b.cfg.Remote
	addr, ok := bridgeAddress(s.game.LocalAddr())
	if !ok {
		return cfg
	}
	cfg.Header = cfg.Header.Clone() // the configured one, which every session shares
	if cfg.Header == nil {
		cfg.Header = make(http.Header, 1)
	}
	cfg.Header.Set(ws.BridgeHeader, addr.String())
	return cfg
}

// refuse answers the game with why the WebSocket could not be opened; that is the session's
// close reason.
func (s *session) refuse(r *bufio.Reader, cause *DialError) {
	s.game.SetDeadline(time.Now().Add(s.b.cfg.HelloTimeout)) // the dial used up the first one
	s.answerErr = answerFailure(s.game, r, s.hello, cause)
	s.fail(cause)
}

// firstBytes is what the server gets first: the handshake and whatever the game sent behind
// it that is already buffered (Login Start, the status request), taken out of r. With early
// data they are the bytes the upgrade request offered: nothing reads r in between.
func firstBytes(r *bufio.Reader, hs mc.Handshake) []byte {
	first := peekFirst(r, hs)
	r.Discard(len(first) - len(hs.Raw))
	return first
}

// attach makes remote the session's WebSocket, closed with the session's reason when it ends,
// unless the session already ended (Close ran during the dial), in which case it closes remote.
func (s *session) attach(remote *ws.Conn) bool {
	return s.end.Add(func(reason error) { remote.CloseWithCode(closeCode(reason), reason.Error()) })
}

// fail records reason, if it is the first, and closes both sides, which ends both pumps.
func (s *session) fail(reason error) { s.end.Fail(reason) }

func closeCode(reason error) ws.CloseCode {
	if errors.Is(reason, ErrShutdown) {
		return ws.CloseGoingAway
	}
	return ws.CloseNormal
}

// logEnd writes the session's one line: a warning when the WebSocket could not be opened.
func (s *session) logEnd() {
	reason := s.end.Reason()
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
	if s.modes.earlyData != "" {
		end.Str("early_data", s.modes.earlyData).Str("raw_stream", s.modes.rawStream)
	}
	if sc := s.serverClose; sc != nil {
		end.Uint16("server_close_code", uint16(sc.Code)).Str("server_close_reason", sc.Reason).Bool("game_told", s.toldGame)
	}
	end.Int64("bytes_up", s.up.Bytes.Load()).Int64("bytes_down", s.down.Bytes.Load()).
		Dur("duration", time.Since(s.started)).Str("close_reason", reason.Error()).Msg("session ended")
}
