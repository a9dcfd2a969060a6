package relay

import (
	"strconv"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// MaintenanceKicks is what KickForMaintenance did.
type MaintenanceKicks struct {
	Kicked  int `json:"kicked"`  // sessions ended
	Told    int `json:"told"`    // of them, players whose Disconnect with the message went out
	Allowed int `json:"allowed"` // players on the allowlist, left playing
}

// KickForMaintenance ends the sessions in play on routes under maintenance now (the route
// labelled label, or every route for "") whose player is not on the allowlist: each as the
// admin API's kick does (kick.go), with the maintenance message in a Disconnect where the stream
// takes one, else closed, the session's end line saying which. Sessions still setting up are
// not touched: letIn turns them away.
func (s *Server) KickForMaintenance(label string) MaintenanceKicks {
	var k MaintenanceKicks
	now, m := time.Now(), s.maintenance.Load()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, sess := range s.sessionList() {
		route := sess.routeName()
		mode := m.For(route, now)
		switch {
		case route == "" || label != "" && route != label || mode == nil || !sess.meters.started():
			continue
		case sess.allowedIn(mode):
			k.Allowed++
			continue
		}
		k.Kicked++
		wg.Go(func() { // at once: each waits up to kickWait for its Disconnect
			told := sess.kickForMaintenance(route, mode).DisconnectSent
			mu.Lock()
			defer mu.Unlock()
			if told {
				k.Told++
			}
		})
	}
	wg.Wait()
	return k
}

// kickForMaintenance kicks the session with mode's message: a stream that takes no packet of
// the proxy's (no mover) is closed at once, its end line says so.
func (s *session) kickForMaintenance(route string, mode *MaintenanceMode) KickResult {
	if s.moves.Load() == nil {
		s.abort(&MaintenanceKickError{Route: route, NoRoom: true})
		return KickResult{ID: strconv.FormatUint(s.id, 10), Note: noRoomNote}
	}
	return s.kick(mc.PlainText(mode.message()), &MaintenanceKickError{Route: route})
}

// allowedIn says whether the session's player, as far as it is known now, is on mode's
// allowlist: by name, or by the UUID the session server vouched for.
func (s *session) allowedIn(mode *MaintenanceMode) bool {
	p := s.player.knownPlayer()
	uuid, _ := parseUUIDText(p.uuid)
	return mode.Allow.allows(p.name, uuid, p.online)
}

// MaintenanceKickError ends a playing session that a route's maintenance kicked.
type MaintenanceKickError struct {
	Route  string
	NoRoom bool // closed without a Disconnect: the stream takes no packet of the proxy's
}

func (e *MaintenanceKickError) Error() string {
	text := "kicked for the maintenance of route " + strconv.Quote(e.Route)
	if e.NoRoom {
		text += ": " + noRoomNote
	}
	return text
}
