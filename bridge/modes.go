package bridge

import (
	"bufio"
	"errors"
	"net/http"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// What a session's WebSocket agreed on, as its "server connected" and end lines say: the field
// early_data is one of these words, raw_stream one of the last three.
const (
	modeUsed     = "used"         // early data: the server took the game's first bytes from the request
	modeRefused  = "refused"      // early data: the server refused the upgrade with them; it was opened again without
	modeOn       = "on"           // raw stream: no WebSocket framing after the upgrade
	modeDeclined = "not accepted" // offered; the server did not select it (its setting is off, or it is older)
	modeOff      = "off"          // not offered: off in the settings, or nothing to offer (a legacy ping, over ws.MaxEarlyData)
)

// modes is what a session offered the server and what it agreed on.
type modes struct {
	earlyData, rawStream string
}

// dialServer opens the session's WebSocket. With Config.EarlyData the game's first bytes go in
// the upgrade request (they stay in r, for firstBytes or a refusal's answer); an upgrade refused
// with 400 or 431, which may be the early data's doing (this server's limit, or a CDN's on
// request headers), is tried once more without them.
func (s *session) dialServer(r *bufio.Reader) (*ws.Conn, error) {
	cfg := s.remoteConfig()
	cfg.EarlyData = s.earlyData(r)
	remote, err := s.b.dial(s.b.ctx, cfg)
	refused := cfg.EarlyData != nil && mayBeEarlyData(err)
	if refused {
		s.log.Warn().Err(err).Msg("the server refused the upgrade with early data, so the bridge opened it again without; set client.early_data to false to skip the second try")
		cfg.EarlyData = nil
		remote, err = s.b.dial(s.b.ctx, cfg)
	}
	if err == nil {
		s.modes = agreed(cfg, remote, refused)
		s.log.Info().Str("early_data", s.modes.earlyData).Str("raw_stream", s.modes.rawStream).Msg("server connected")
	}
	return remote, err
}

// earlyData is what the session offers as early data: the game's first bytes, when the setting
// is on, the hello is a handshake (a legacy ping is answered here) and they fit. They are the
// handshake and the packet behind it, once awaitNextPacket has it, or what had come by then.
func (s *session) earlyData(r *bufio.Reader) []byte {
	if !s.b.cfg.EarlyData || s.hello.Legacy != nil {
		return nil
	}
	s.awaitNextPacket(r)
	if first := peekFirst(r, s.hello.Handshake); len(first) <= ws.MaxEarlyData {
		return first
	}
	return nil
}

// mayBeEarlyData says whether an upgrade refusal could be the early data's: 400 (malformed) or
// 431 (over a limit).
func mayBeEarlyData(err error) bool {
	var he *ws.HandshakeError
	return errors.As(err, &he) && (he.StatusCode == http.StatusBadRequest || he.StatusCode == http.StatusRequestHeaderFieldsTooLarge)
}

// agreed names the modes of an opened WebSocket, dialled with cfg.
func agreed(cfg ws.DialConfig, remote *ws.Conn, refused bool) modes {
	m := modes{earlyData: offerWord(cfg.EarlyData != nil, remote.EarlyData(), modeUsed),
		rawStream: offerWord(cfg.RawStream, remote.RawStream(), modeOn)}
	if refused {
		m.earlyData = modeRefused
	}
	return m
}

func offerWord(offered, taken bool, yes string) string {
	switch {
	case taken:
		return yes
	case offered:
		return modeDeclined
	}
	return modeOff
}

// peekFirst is the handshake and the game's bytes that are buffered behind it, left in r.
func peekFirst(r *bufio.Reader, hs mc.Handshake) []byte {
	rest := buffered(r)
	return append(append(make([]byte, 0, len(hs.Raw)+len(rest)), hs.Raw...), rest...)
}
