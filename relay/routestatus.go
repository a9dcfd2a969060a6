package relay

import (
	"encoding/json"
	"errors"
)

// RouteStatus is what a route's server-list entry shows in place of its backend's answer;
// each zero field keeps the backend's part. It applies to every answer the route has from a
// backend (live, cached, last known: marked offline after), not to the fixed fallback.
type RouteStatus struct {
	MOTD        json.RawMessage // a JSON text component (mc.ParseText); nil: the server's
	Favicon     string          // a data URL (mc.FaviconDataURL); "": the server's
	VersionName string          // "": the server's; the protocol stays the server's
	ProxyOnline bool            // the player line counts the proxy's players of the route
	MaxPlayers  int             // the player line's max; 0: the server's (or Route.MaxPlayers)
}

// set says whether the route changes its backend's answer at all: then it answers pings itself.
func (rs RouteStatus) set() bool {
	return rs.MOTD != nil || rs.Favicon != "" || rs.VersionName != "" || rs.ProxyOnline || rs.MaxPlayers > 0
}

// errStatusTooLarge is a status answer that, with the route's fields in, is longer than
// clients read.
var errStatusTooLarge = errors.New("the status answer with the route's fields is too long")

// maxStatusJSON is the status JSON's bound in bytes as this package checks it: the client's
// 32767 characters, counted as bytes (an answer near the bound keeps the server's own fields).
const maxStatusJSON = 32767

// apply is body, a server's status JSON, with rs's MOTD, favicon and version name in place of
// the server's; body itself when rs sets none of them or the result would be too long.
func (rs RouteStatus) apply(body []byte) []byte {
	if rs.MOTD == nil && rs.Favicon == "" && rs.VersionName == "" {
		return body
	}
	out, err := rs.rewrite(body)
	if err != nil {
		return body // ParseStatusResponse checked it is an object; too long keeps the server's
	}
	return out
}

func (rs RouteStatus) rewrite(body []byte) ([]byte, error) {
	var status map[string]json.RawMessage
	if err := json.Unmarshal(body, &status); err != nil {
		return nil, err
	}
	if rs.MOTD != nil {
		status["description"] = rs.MOTD
	}
	if rs.Favicon != "" {
		status["favicon"], _ = json.Marshal(rs.Favicon)
	}
	if rs.VersionName != "" {
		var version map[string]json.RawMessage
		if json.Unmarshal(status["version"], &version) != nil || version == nil {
			version = map[string]json.RawMessage{}
		}
		version["name"], _ = json.Marshal(rs.VersionName)
		status["version"], _ = json.Marshal(version)
	}
	out, err := json.Marshal(status)
	if err == nil && len(out) > maxStatusJSON {
		return nil, errStatusTooLarge
	}
	return out, err
}

// playerNumbers is the route's player line: max and online in place of the server's, each -1
// to keep the server's. A route's max_players shows with the proxy's count (the proxy admits
// its players); status.max_players and status.online set each on their own.
func (r *Route) playerNumbers(count func() int) (maxPlayers, online int) {
	maxPlayers, online = -1, -1
	if r.MaxPlayers > 0 {
		maxPlayers, online = r.MaxPlayers, count()
	}
	if r.Status.MaxPlayers > 0 {
		maxPlayers = r.Status.MaxPlayers
	}
	if r.Status.ProxyOnline {
		online = count()
	}
	return maxPlayers, online
}
