package relay

import (
	"bufio"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// Bans are checked before any backend is dialled (relay/bans holds the list):
//
//	address  once the session has the client's real address (after a trusted PROXY or
//	         forwarded header) and its hello, before routing: a login reads the ban, a
//	         server-list ping gets the fallback's status from the proxy
//	name,    a login the proxy passes through: from its Login Start, which the session waits
//	uuid     for before the dial while the list bans names or UUIDs (the UUID is the one the
//	         client sends); a login the proxy runs (auth online, offline): from the profile it
//	         ends with, after the session server for online routes
//
// A refused player reads the ban's message (reason and end) in a Login Disconnect, through the
// login's cipher when it is on; the session ends as "banned" and the list counts the refusal.

// BannedError ends a session a ban refused.
type BannedError struct{ Ban bans.Ban }

func (e *BannedError) Error() string { return "banned by " + string(e.Ban.Kind) + " " + e.Ban.Value }

// checkAddressBan refuses a client whose address is banned; true lets the session go on.
func (s *session) checkAddressBan(o *opening) bool {
	b, ok := s.srv.bans.Addr(s.info.client.Addr(), time.Now())
	if ok {
		s.refuseBanned(o, b)
	}
	return !ok
}

// checkPlayerBan refuses a login whose player is banned by name or UUID; true lets it go on.
// A login passed through whose Login Start cannot be read is refused too while the list bans
// players (else a mangled one would pass unchecked).
func (s *session) checkPlayerBan(o *opening) bool {
	if o.hs.NextState == mc.NextStatus || !s.srv.bans.HasPlayerBans() {
		return true
	}
	var name, uuid string
	if o.ranLogin {
		name, uuid = s.login.Profile.Name, s.login.Profile.ID.String()
	} else {
		ls, err := peekLoginStart(o.r, o.hs.Protocol)
		if err != nil {
			s.line.answered = "login refused"
			s.answer(o.r, o.hello, mc.Answer{Disconnect: unreadableLoginStart}, clientError("login start", err))
			return false
		}
		name = ls.Name
		if ls.HasUUID {
			uuid = mc.UUIDString(ls.UUID)
		}
	}
	b, ok := s.srv.bans.Player(name, uuid, time.Now())
	if ok {
		if !o.ranLogin {
			s.player.setName(name, uuid, false) // for the end line: the refused session's player
		}
		s.refuseBanned(o, b)
	}
	return !ok
}

// unreadableLoginStart is what a login whose Login Start does not parse reads while the list
// bans players.
const unreadableLoginStart = "Login failed: your client sent something this server does not understand."

// peekLoginStart reads Login Start's head from r and leaves it there for the backend.
func peekLoginStart(r *bufio.Reader, protocol int32) (mc.LoginStart, error) {
	ls, _, err := mc.PeekParsed(r, func(b []byte) (mc.LoginStart, int, error) {
		ls, err := mc.ParseLoginStart(b, protocol)
		return ls, 0, err
	})
	return ls, err
}

// refuseBanned tells the client the ban (a login its message, a ping the fallback's status),
// counts it and ends the session.
func (s *session) refuseBanned(o *opening, b bans.Ban) {
	s.srv.bans.Refused(b.Kind)
	s.line.answered = "banned"
	s.answer(o.r, o.hello, mc.Answer{Status: s.fallback().Status, Disconnect: b.Message()}, &BannedError{Ban: b})
}
