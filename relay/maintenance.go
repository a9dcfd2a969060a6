package relay

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/mc/auth"
)

// Maintenance says which routes are down for work: their server-list entry is the owner's,
// and a login whose player is not on the allowlist is told the owner's message. It is set as a
// whole (Server.SetMaintenance) apart from the Config, since the admin endpoint switches it
// without a reload; a session reads it once, when it asks.
type Maintenance struct {
	// All applies to every route without an entry of its own in Routes; Routes to the route of
	// each label, a nil entry keeping the route open (an owner's "every route but this one").
	All    *MaintenanceMode
	Routes map[string]*MaintenanceMode
}

// MaintenanceMode is one route's maintenance (or every route's).
type MaintenanceMode struct {
	MOTD        json.RawMessage // the server list's text component (mc.ParseText)
	Favicon     string          // a data URL; "": the route's status icon, else none
	VersionName string          // shown, in red, in place of the player count (protocol -1)
	Message     json.RawMessage // the login Disconnect's text component for a player not allowed
	Allow       Allowlist
	// Start and End bound it in time; zero: from when it is set, until it is switched off.
	Start, End time.Time
}

// ActiveAt says whether m applies at now: after its start, before its end.
func (m *MaintenanceMode) ActiveAt(now time.Time) bool {
	return m != nil && (m.Start.IsZero() || !now.Before(m.Start)) && (m.End.IsZero() || now.Before(m.End))
}

// For is the maintenance that applies to the route labelled label at now: its own entry's when
// it has one, else every route's; nil when the route is open.
func (m *Maintenance) For(label string, now time.Time) *MaintenanceMode {
	if m == nil {
		return nil
	}
	mode, own := m.Routes[label]
	if !own {
		mode = m.All
	}
	if mode.ActiveAt(now) {
		return mode
	}
	return nil
}

// SetMaintenance makes m the maintenance every session asks from now on; sessions already
// playing are not touched (KickForMaintenance is).
func (s *Server) SetMaintenance(m Maintenance) { s.maintenance.Store(&m) }

// HasRoute says whether a route labelled label is served now.
func (s *Server) HasRoute(label string) bool { return s.routeLabelled(label) != nil }

// routeLabelled is the route labelled label served now, nil if there is none.
func (s *Server) routeLabelled(label string) *Route {
	routes := s.settings().router.routes
	for i := range routes {
		if routes[i].Label() == label {
			return &routes[i]
		}
	}
	return nil
}

// RouteLabels lists the labels of the routes served now, in route order.
func (s *Server) RouteLabels() []string {
	routes := s.settings().router.routes
	labels := make([]string, len(routes))
	for i := range routes {
		labels[i] = routes[i].Label()
	}
	return labels
}

// maintenanceFor is the maintenance route is under now, nil when it is open.
func (s *Server) maintenanceFor(route *Route) *MaintenanceMode {
	return s.maintenance.Load().For(route.Label(), time.Now())
}

// MaxAllowlist bounds an allowlist: the players of a team at work, not a whitelist of a
// network (that is the backend's).
const MaxAllowlist = 1000

// Allowlist is who may join a route under maintenance: player names (compared without case)
// and UUIDs. A UUID is believed only from a login the proxy verified with the session server
// (auth online); elsewhere the name the client sends is all there is (a pre-filter).
type Allowlist struct {
	names map[string]bool
	uuids map[auth.UUID]bool
}

// ErrAllowlist is an allowlist entry that is neither a player name nor a UUID, or too many.
var ErrAllowlist = errors.New("allowlist")

// NewAllowlist reads entries: names of 1 to 16 letters, digits and underscores (a Bedrock
// player's name may start with Floodgate's . or *), or UUIDs of 32 hex digits with or without
// hyphens. At most MaxAllowlist entries.
func NewAllowlist(entries []string) (Allowlist, error) {
	if len(entries) > MaxAllowlist {
		return Allowlist{}, fmt.Errorf("%w: %d entries, at most %d", ErrAllowlist, len(entries), MaxAllowlist)
	}
	a := Allowlist{names: map[string]bool{}, uuids: map[auth.UUID]bool{}}
	for i, e := range entries {
		if u, ok := parseUUIDText(e); ok {
			a.uuids[u] = true
			continue
		}
		if !validPlayerName(e) {
			return Allowlist{}, fmt.Errorf("%w: entry %d (%.40q) is neither a player name nor a UUID", ErrAllowlist, i, e)
		}
		a.names[strings.ToLower(e)] = true
	}
	return a, nil
}

// Entries lists the allowlist: names in lower case, then UUIDs with hyphens; unordered.
func (a Allowlist) Entries() []string {
	out := make([]string, 0, len(a.names)+len(a.uuids))
	for n := range a.names {
		out = append(out, n)
	}
	for u := range a.uuids {
		out = append(out, u.String())
	}
	return out
}

// allows says whether a player may join: by name, or by UUID when verified says the session
// server vouched for it.
func (a Allowlist) allows(name string, uuid auth.UUID, verified bool) bool {
	return name != "" && a.names[strings.ToLower(name)] || verified && a.uuids[uuid]
}

func validPlayerName(s string) bool {
	body := strings.TrimLeft(s, ".*")
	if len(s)-len(body) > 1 || body == "" || len(body) > 16 {
		return false
	}
	for _, c := range body {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// parseUUIDText reads a UUID of 32 hex digits, with the four hyphens or none.
func parseUUIDText(s string) (auth.UUID, bool) {
	var u auth.UUID
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		s = strings.ReplaceAll(s, "-", "")
	}
	if len(s) != 32 {
		return u, false
	}
	_, err := hex.Decode(u[:], []byte(s))
	return u, err == nil
}
