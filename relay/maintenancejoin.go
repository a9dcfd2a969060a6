package relay

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
)

// letIn answers, for a route under maintenance, what the owner set: a status ping gets the
// maintenance entry, a login whose player is not on the allowlist the maintenance message. On a
// route whose login the proxy runs it comes after that login (online: the name and UUID the
// session server vouched for); elsewhere it reads the name in Login Start, which the client
// chooses (a pre-filter; the backend's own whitelist is what holds).
func (s *session) letIn(o *opening) bool {
	mode := s.srv.maintenanceFor(o.route)
	if mode == nil {
		return true
	}
	if o.hs.NextState == mc.NextStatus {
		s.line.answered = "maintenance"
		s.serveStatus(o.r, o.hello, s.maintenanceStatus(o.route, mode), o.route, nil)
		return false
	}
	name, uuid, verified, err := s.whoJoins(o)
	if err == nil && mode.Allow.allows(name, uuid, verified) {
		return true
	}
	s.srv.countRefusal(refusedMaintenance)
	s.line.answered = "maintenance"
	sendErr := s.sendAnswer(mc.AppendLoginDisconnectText(nil, mode.message()))
	s.abort(errors.Join(&MaintenanceError{Route: o.route.Label()}, err, sendErr))
	return false
}

// whoJoins is the player a login names: the one the proxy's login found (verified when the
// session server vouched for it), else the name in Login Start, read without taking it from r
// (the backend gets it; peekLoginStart, banned.go).
func (s *session) whoJoins(o *opening) (name string, uuid auth.UUID, verified bool, err error) {
	if s.login != nil {
		return s.login.Profile.Name, s.login.Profile.ID, s.login.Enc != nil, nil
	}
	ls, err := peekLoginStart(o.r, o.hs.Protocol)
	if err != nil {
		return "", uuid, false, clientError("login start", err)
	}
	return ls.Name, uuid, false, nil
}

// maintenanceStatus is the server-list answer of route under mode: the owner's MOTD, icon
// (or the route's status icon) and version text, with protocol -1 so that every client shows
// that text in place of the player count; the player line counts the proxy's players of the
// route (those the allowlist let in) against the route's max.
func (s *session) maintenanceStatus(route *Route, mode *MaintenanceMode) []byte {
	favicon := mode.Favicon
	if favicon == "" {
		favicon = route.Status.Favicon
	}
	maxPlayers, _ := route.playerNumbers(func() int { return 0 })
	status := map[string]any{
		"version":     map[string]any{"name": mode.VersionName, "protocol": -1},
		"players":     map[string]int{"max": max(maxPlayers, 0), "online": s.srv.networkPlayers(route)},
		"description": textOrEmpty(mode.MOTD),
	}
	if favicon != "" {
		status["favicon"] = favicon
	}
	body, _ := json.Marshal(status) // maps of strings, numbers and checked JSON: cannot fail
	return body
}

// message is the Disconnect a player not on the allowlist reads.
func (m *MaintenanceMode) message() json.RawMessage { return textOrEmpty(m.Message) }

// textOrEmpty is a text component, or an empty one for nil.
func textOrEmpty(text json.RawMessage) json.RawMessage {
	if text == nil {
		return json.RawMessage(`{"text":""}`)
	}
	return text
}

// MaintenanceError ends a session that a route's maintenance turned away.
type MaintenanceError struct{ Route string }

func (e *MaintenanceError) Error() string {
	return "route " + strconv.Quote(e.Route) + " is under maintenance and the player is not on its allowlist"
}
