package relay

import (
	"strconv"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// kickLeave is how long a player told it is kicked has to read the Disconnect and leave before
// its session is closed (the Disconnect may still be on its way, held for a slow player).
const kickLeave = 2 * time.Second

// MaintenanceKicks is what KickForMaintenance did.
type MaintenanceKicks struct {
	Kicked  int `json:"kicked"`  // sessions ended
	Told    int `json:"told"`    // of them, players whose Disconnect with the message went out within a second
	Allowed int `json:"allowed"` // players on the allowlist, left playing
}

// KickForMaintenance ends the sessions of players on routes under maintenance now (the route
// labelled label, or every route for "") who are not on its allowlist: with a Disconnect saying
// the maintenance message where the stream takes one (a client of 1.20.5 or later whose stream
// the proxy follows, the way a drain tells its players), else closed, with the reason on the
// session's end line. Sessions still setting up are not touched: letIn turns them away.
func (s *Server) KickForMaintenance(label string) MaintenanceKicks {
	var k MaintenanceKicks
	now := time.Now()
	var tell []*session
	for _, sess := range s.sessionList() {
		route := sess.playingOn.Load()
		if route == nil || label != "" && *route != label {
			continue
		}
		mode := s.maintenance.Load().For(*route, now)
		switch {
		case mode == nil:
			continue
		case sess.allowedIn(mode):
			k.Allowed++
			continue
		}
		k.Kicked++
		if sess.moves.Load() != nil {
			tell = append(tell, sess)
		} else {
			sess.abort(&MaintenanceKickError{Route: *route})
		}
	}
	k.Told = putInAll(tell, moveWait, func(sess *session, done func(bool)) bool {
		return sess.tellMaintenance(s.maintenance.Load().For(*sess.playingOn.Load(), now), done)
	})
	return k
}

// allowedIn says whether the session's player is on mode's allowlist: by the name and UUID the
// proxy's login verified, else by the name Login Start gave.
func (s *session) allowedIn(mode *MaintenanceMode) bool {
	if s.login != nil { // set before playingOn, which the caller read
		return mode.Allow.allows(s.login.Profile.Name, s.login.Profile.ID, s.login.Enc != nil)
	}
	return mode.Allow.allows(s.player.knownName(), [16]byte{}, false)
}

// tellMaintenance sends the player mode's message as a Disconnect and closes the session
// kickLeave later; a stream that could not take it is closed at once.
func (s *session) tellMaintenance(mode *MaintenanceMode, done func(bool)) bool {
	route := *s.playingOn.Load()
	if mode == nil { // switched off meanwhile
		return false
	}
	return s.tell(mc.PlainText(mode.message()), func(sent bool) {
		if !sent {
			s.abort(&MaintenanceKickError{Route: route})
		} else {
			time.AfterFunc(kickLeave, func() { s.abort(&MaintenanceKickError{Route: route, Told: true}) })
		}
		done(sent)
	})
}

// MaintenanceKickError ends a playing session that a route's maintenance kicked.
type MaintenanceKickError struct {
	Route string
	Told  bool // the player was sent the message; false: the stream had no room for a Disconnect
}

func (e *MaintenanceKickError) Error() string {
	if e.Told {
		return "kicked for the maintenance of route " + strconv.Quote(e.Route) + " (told why)"
	}
	return "kicked for the maintenance of route " + strconv.Quote(e.Route) +
		": closed without a Disconnect, the stream had no room for one (a client before 1.20.5, or a stream the proxy does not follow)"
}
