package relay

import "net/netip"

// A session moved in from an upgrade's old process (movesession_linux.go) was admitted there:
// here it takes its slots whatever the limits say now, so that it counts towards them from now
// on and is never refused for a limit the old process had let it through.

// holdConnection counts one more open connection in total and under addr's key and network,
// and returns what gives them back, once.
func (c *counter) holdConnection(addr netip.Addr) (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total++
	addrSlots := takeTwo(&c.mu, c.perAddr, c.limitKey(addr), c.perNet, c.networkKey(addr))
	held := true
	return func() {
		addrSlots()
		c.mu.Lock()
		defer c.mu.Unlock()
		if held {
			held = false
			c.total--
		}
	}
}

// holdRoute counts the session on route's own limit (nil: the route has none) and, for a
// login, as a player of route from addr.
func (c *counter) holdRoute(route *Route, addr netip.Addr, login bool) (releases []func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if route.MaxConnections > 0 {
		releases = append(releases, takeTwo(&c.mu, c.perRoute, route, nil, route))
	}
	if login {
		releases = append(releases, takeTwo(&c.mu, c.players.perAddr, c.limitKey(addr), c.players.perRoute, route.Label()))
	}
	return releases
}
