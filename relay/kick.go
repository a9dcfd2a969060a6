package relay

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/moonbridge/moonbridge/relay/bans"
)

// The admin API's actions on one session: a kick, a move, and the kick of a new ban's players.

// MaxMessageBytes bounds a kick's message.
const MaxMessageBytes = 256

// kickWait bounds how long a kick waits for its Disconnect to go out (a packet of the
// backend's partly through delays it); kickLeave how long a kicked player that got it has to
// leave before its session is closed.
const (
	kickWait  = time.Second
	kickLeave = 2 * time.Second
)

// noRoomNote says why a kick closed a session without a Disconnect.
const noRoomNote = "closed without a Disconnect: the proxy cannot put a packet into this stream " +
	"(a client before 1.20.5, a stream the backend encrypts, or a session not in play yet)"

// KickedError ends a session the admin API kicked.
type KickedError struct{ Message string }

func (e *KickedError) Error() string { return "kicked by the admin API: " + strconv.Quote(e.Message) }

// KickResult is what a kick did: whether the player got a Disconnect with the message (then
// its client leaves, or is closed kickLeave later), or why not (it was closed at once).
type KickResult struct {
	ID             string `json:"id"`
	DisconnectSent bool   `json:"disconnect_sent"`
	Note           string `json:"note,omitempty"`
}

// Kick ends the session with id, telling its player message (plain text, no control
// characters but line breaks) in a Disconnect where the stream has room for one.
func (s *Server) Kick(id, message string) (KickResult, error) {
	sess, err := s.findSession(id)
	if err != nil {
		return KickResult{}, err
	}
	if message == "" {
		return KickResult{}, &bans.InputError{Field: "message", Reason: "say why: the player reads it"}
	}
	if err := bans.CheckText("message", message, MaxMessageBytes); err != nil {
		return KickResult{}, err
	}
	return sess.kick(message, &KickedError{Message: message}), nil
}

// KickBanned kicks the open sessions b matches (as far as their player is known), with the
// ban's message, and says what each kick did.
func (s *Server) KickBanned(b bans.Ban) []KickResult {
	var matched []*session
	for _, sess := range s.sessionList() {
		if sess.matches(b) {
			matched = append(matched, sess)
		}
	}
	slices.SortFunc(matched, func(a, b *session) int { return cmp.Compare(a.id, b.id) })
	out := make([]KickResult, len(matched))
	var wg sync.WaitGroup
	for i, sess := range matched { // at once: each waits up to kickWait for its Disconnect
		wg.Go(func() { out[i] = sess.kick(b.Message(), &BannedError{Ban: b}) })
	}
	wg.Wait()
	return out
}

// kick tells the player message where it can and ends the session with reason.
func (s *session) kick(message string, reason error) KickResult {
	r := KickResult{ID: strconv.FormatUint(s.id, 10)}
	sent := make(chan bool, 1)
	if s.tell(message, func(ok bool) { sent <- ok }) && waitSent(sent, kickWait) {
		r.DisconnectSent = true
		time.AfterFunc(kickLeave, func() { s.abort(reason) })
		return r
	}
	s.abort(reason)
	r.Note = noRoomNote
	return r
}

// waitSent is what sent says within d; false when it says nothing by then.
func waitSent(sent <-chan bool, d time.Duration) bool {
	select {
	case ok := <-sent:
		return ok
	case <-time.After(d):
		return false
	}
}

// SessionTransfer is what a session's move did.
type SessionTransfer struct {
	ID           string `json:"id"`
	To           string `json:"to"`
	TransferSent bool   `json:"transfer_sent"`
	Note         string `json:"note,omitempty"`
}

// NotMovableError: the session's player cannot be sent a Transfer.
type NotMovableError struct{ Reason string }

func (e *NotMovableError) Error() string { return "this player cannot be moved: " + e.Reason }

// TransferSession sends the player of the session with id a Transfer to host:port (with the
// signed cookie of shutdown.transfer_secret_file when there is one), as a drain does. Only a
// raw TCP player of 1.20.5 or later in play can be sent to an address: a WebSocket player's
// client came through the proxy's ws listener and cannot reach another address by itself.
func (s *Server) TransferSession(id, host string, port uint16) (SessionTransfer, error) {
	sess, err := s.findSession(id)
	if err != nil {
		return SessionTransfer{}, err
	}
	if err := checkTransferHost(host, port); err != nil {
		return SessionTransfer{}, err
	}
	moves, err := addressMoves(sess)
	if err != nil {
		return SessionTransfer{}, err
	}
	r := SessionTransfer{ID: id, To: net.JoinHostPort(host, strconv.Itoa(int(port)))}
	sent := make(chan bool, 1)
	done := func(ok bool) { s.countMove(ok); sent <- ok }
	if sess.transferTo(moves, host, port, s.settings().Transfer.Cookies, done) == moveAlready {
		return SessionTransfer{}, &NotMovableError{Reason: "it was sent a Transfer already"}
	}
	if r.TransferSent = waitSent(sent, moveWait); !r.TransferSent {
		r.Note = "the Transfer did not go out: the backend encrypts this stream, or a packet of its is still partly through"
	}
	return r, nil
}

// addressMoves is how sess's player can be sent to an address the admin API names, or why it
// cannot: only a raw TCP player of 1.20.5 or later in play can. A WebSocket player's client
// came through the proxy's ws listener (from a browser, or from moonbridge's bridge, which the
// game reaches locally) and cannot reach another address by itself.
func addressMoves(sess *session) (*sessionMoves, error) {
	moves := sess.moves.Load()
	switch {
	case sess.protocol != string(Minecraft):
		return nil, &NotMovableError{Reason: "a WebSocket player cannot be sent to another address"}
	case moves == nil:
		return nil, &NotMovableError{Reason: "its client is older than 1.20.5, or it is not in play yet"}
	}
	return moves, nil
}

// countMove counts a Transfer that went out or could not, in moonbridge_drain_moves_total.
func (s *Server) countMove(sent bool) {
	if sent {
		s.transfers.moves.WithLabelValues(transferSent).Inc()
		return
	}
	s.transfers.moves.WithLabelValues(transferFailed).Inc()
}

// checkTransferHost checks a Transfer's address: a host name or IP address of at most
// maxTransferHost characters, and a port.
func checkTransferHost(host string, port uint16) error {
	switch {
	case host == "" || len(host) > maxTransferHost:
		return &bans.InputError{Field: "host", Value: host, Reason: "a host name or IP address of 1 to 253 characters"}
	case strings.IndexFunc(host, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) || r == '/' }) >= 0:
		return &bans.InputError{Field: "host", Value: host, Reason: "a host name or IP address, no spaces, slashes or control characters"}
	case port == 0:
		return &bans.InputError{Field: "port", Value: "0", Reason: "1 to 65535"}
	}
	return nil
}
