package relay

import (
	"encoding/json"
	"net/netip"

	"github.com/moonbridge/moonbridge/mc"
)

// players counts the players: sessions whose login goes on to a backend (after the proxy's own
// login, when the route runs one), not pings or connections still in their handshake. Per
// client address (by limitKey), and per route by its label, so that a reload that keeps a
// route keeps its count.
type players struct {
	perAddr  map[netip.Addr]int
	perRoute map[string]int
	// pending are the joins in perRoute waiting for their check across the replicas, version
	// is raised by every such check (replicas.go).
	pending map[string]int
	version uint64
}

func newPlayers() players {
	return players{perAddr: map[netip.Addr]int{}, perRoute: map[string]int{}, pending: map[string]int{}}
}

// acquirePlayer counts one more player from addr on route, or refuses it when addr is at
// MaxPlayersPerAddress or route at its MaxPlayers.
func (c *counter) acquirePlayer(addr netip.Addr, route *Route) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, label := c.limitKey(addr), route.Label()
	if n := c.limits.MaxPlayersPerAddress; n > 0 && c.players.perAddr[key] >= n {
		return nil, limitError(refusedPlayersPerAddr, n, "players per address")
	}
	if n := route.MaxPlayers; n > 0 && c.players.perRoute[label] >= n {
		return nil, limitError(refusedRoutePlayers, n, "players on this route")
	}
	c.notePending(route)
	return takeTwo(&c.mu, c.players.perAddr, key, c.players.perRoute, label), nil
}

// routePlayers is how many players route has now.
func (c *counter) routePlayers(route *Route) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.players.perRoute[route.Label()]
}

// seat counts a join as a player of its address and its route until the session ends, or
// refuses it: a full route with the server-full message (memory.full_message), an address over
// max_players_per_address with the limit's words, as the other per-address limits.
func (s *session) seat(o *opening) bool {
	if o.hs.NextState == mc.NextStatus {
		return true
	}
	release, err := s.srv.counter.acquirePlayer(s.info.clientAddr().Addr(), o.route)
	if err == nil {
		err = s.srv.seatAcross(o.route, release)
	}
	switch {
	case err == nil:
		s.end.Add(func(error) { release() })
		return true
	case limitReason(err) == refusedRoutePlayers:
		s.srv.countRefusal(refusedRoutePlayers)
		s.line.answered = "server full"
		s.answer(o.r, o.hello, mc.Answer{Disconnect: s.srv.mem.cfg.FullMessage}, err)
	default:
		s.refuseOverLimit(o, err)
	}
	return false
}

// withPlayers is a server's status JSON with the route's player line (Route.playerNumbers): max
// and online in place of the server's numbers, each -1 to keep the server's (the proxy is what
// admits players to the route, and a server behind several proxies counts them all); the
// sample and every other key stay as the server sent them.
func withPlayers(body []byte, maxPlayers, online int) ([]byte, error) {
	var status map[string]json.RawMessage
	if err := json.Unmarshal(body, &status); err != nil {
		return nil, err
	}
	var line map[string]json.RawMessage
	if json.Unmarshal(status["players"], &line) != nil || line == nil {
		line = map[string]json.RawMessage{} // none, or not an object: the proxy's numbers alone
	}
	if maxPlayers >= 0 {
		line["max"], _ = json.Marshal(maxPlayers)
	}
	if online >= 0 {
		line["online"], _ = json.Marshal(online)
	}
	status["players"], _ = json.Marshal(line)
	return json.Marshal(status)
}
