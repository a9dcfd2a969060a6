package bridge

import (
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/play"
	"github.com/moonbridge/moonbridge/ws"
)

// When the server ends the WebSocket with a reason (a draining proxy: 1001 "The server is
// restarting"), the bridge shows it to the player as a Disconnect, not as "connection lost".
// It can put a packet into the stream to the game only where it knows the stream:
//
//	nothing written to the game yet (a login)   login Disconnect, JSON text
//	766+, configuration or play, at a frame     the state's Disconnect, framed and compressed
//	  boundary (play.Tracker follows the bytes)  as the stream is
//	anything else: encrypted (an online-mode    nothing; the session's log line has the code
//	  route), mid-frame, older, a status ping    and reason
//
// A Disconnect or Transfer the server sent itself ends the stream for the tracker (not Movable
// from then on), so a player never gets a second Disconnect, nor one behind a drain's Transfer.

// farewellWait bounds the write of the Disconnect to a game that does not read.
const farewellWait = 2 * time.Second

// followDown starts following the stream to the game when the game logs in with protocol 766
// or newer; a status ping, an older game or a tracker that cannot start leaves it nil.
func (s *session) followDown() {
	hs := s.hello.Handshake
	if !joining(hs) || !play.Supports(hs.Protocol) {
		return
	}
	tracker, err := play.NewTracker(hs.Protocol)
	if err != nil {
		s.log.Debug().Err(err).Msg("not following the stream to the game")
		return
	}
	s.tracker = tracker
}

// joining says whether the handshake leads to a login (or a transfer's login).
func joining(hs mc.Handshake) bool {
	return hs.NextState == mc.NextLogin || hs.NextState == mc.NextTransfer
}

// follow feeds what was written to the game to the tracker; a tracker that fails has lost the
// stream for good and is dropped.
func (s *session) follow(b []byte) {
	if s.tracker == nil {
		return
	}
	if _, err := s.tracker.Feed(b, false); err != nil {
		s.tracker = nil
	}
}

// farewell runs when the stream from the server has ended and the game is still there: it
// keeps the server's close frame for the log line and, when it said something, passes that
// to the game if the stream allows.
func (s *session) farewell(remote *ws.Conn) {
	code, reason, ok := remote.PeerClose()
	if !ok {
		return
	}
	s.serverClose = &ws.CloseError{Code: code, Reason: reason}
	text := closeText(code, reason)
	if text == "" {
		return
	}
	frame := s.disconnectFrame(text)
	if frame == nil {
		return
	}
	s.game.SetWriteDeadline(time.Now().Add(farewellWait))
	_, err := s.game.Write(frame)
	s.toldGame = err == nil
}

// closeText is what the player is shown of a close: its reason, else its code in words; ""
// for a normal close that says nothing.
func closeText(code ws.CloseCode, reason string) string {
	switch {
	case reason != "":
		return reason
	case code == ws.CloseNormal || code == ws.CloseNoStatus:
		return ""
	}
	return "The server closed the connection (" + code.String() + ")"
}

// disconnectFrame is the Disconnect that shows text to the game in the stream's present state,
// or nil when none can be put in.
func (s *session) disconnectFrame(text string) []byte {
	switch {
	case !joining(s.hello.Handshake):
		return nil
	case s.down.Bytes.Load() == 0:
		return mc.AppendLoginDisconnect(nil, text)
	case s.tracker != nil && s.tracker.Movable():
		return s.tracker.AppendDisconnect(nil, text)
	}
	return nil
}
