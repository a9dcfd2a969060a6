package relay

import (
	"net/netip"
	"time"
)

// Replicas is the state this relay shares with the other replicas of one network (package
// replicas keeps it on Redis; cmd/moonbridge wires it in Config.Replicas). The relay calls it
// only at accept, at a hello, at a join and when it blocks an address; every method answers
// from the implementation's local caches at once, but Seat, which waits at most its own bound.
// Without it (nil) every count, block and rate is this replica's own.
type Replicas interface {
	// OtherPlayers is how many players the other replicas have on the route of this label.
	OtherPlayers(route string) int
	// Seat says whether one more player fits on the route across the replicas. It calls count,
	// once, when it is the route's only check under way on this replica, for this replica's
	// players on the route with the new one and the players' version with it (RoutePlayers). A
	// non-nil answer refuses the join as the route being full; an implementation that cannot
	// tell in time admits it.
	Seat(route string, maxPlayers int, count func() (here int, version uint64)) error
	// Block shares a block of a block list key until a time; Blocked says whether another
	// replica blocked the key, HasBlocks in one atomic load whether any key is blocked;
	// ClearBlocks empties the shared list.
	Block(key netip.Addr, until time.Time)
	Blocked(key netip.Addr, at time.Time) bool
	HasBlocks() bool
	ClearBlocks() error
	// Count counts one event of name (a network and what it did) in windows of window and
	// says how many the replicas counted together in the current one.
	Count(name string, window time.Duration) int
	// AttackRates shares this replica's last measurement of the attack mode's rates (new
	// connections, status pings, logins a second, each network's share capped) and says the
	// other replicas' latest, summed.
	AttackRates(mine [3]float64) (others [3]float64)
}

// RoutePlayers is what the replicas publish: the players on each route served now or with
// players, by label (not the joins waiting for their check across the replicas), and their
// version, which grows with every such check.
func (s *Server) RoutePlayers() (perRoute map[string]int, version uint64) {
	routes := s.settings().router.routes
	c := s.counter
	c.mu.Lock()
	defer c.mu.Unlock()
	perRoute = make(map[string]int, len(routes))
	for i := range routes {
		perRoute[routes[i].Label()] = 0
	}
	for label, n := range c.players.perRoute {
		perRoute[label] = n - c.players.pending[label]
	}
	return perRoute, c.players.version
}

// networkPlayers is route's players on every replica: this one's and the others' as last
// learnt.
func (s *Server) networkPlayers(route *Route) int {
	n := s.counter.routePlayers(route)
	if s.replicas != nil {
		n += s.replicas.OtherPlayers(route.Label())
	}
	return n
}

// seatAcross checks a join this replica has counted on route (pending, notePending) against the
// route's max_players across the replicas, and gives back its count with release when it is
// refused. A join is pending until it asks (seatCount), or until Seat decides without asking.
// A refused join counts from its ask until release: a join is refused only when the route is
// full, when one more in the count refuses nobody who would fit.
func (s *Server) seatAcross(route *Route, release func()) error {
	if s.replicas == nil || route.MaxPlayers <= 0 {
		return nil
	}
	label, c := route.Label(), s.counter
	asked := false
	err := s.replicas.Seat(label, route.MaxPlayers, func() (int, uint64) { asked = true; return c.seatCount(label) })
	if !asked {
		c.settle(label)
	}
	if err != nil {
		release()
		return limitError(refusedRoutePlayers, route.MaxPlayers, "players on this route")
	}
	return nil
}

// notePending counts a join acquirePlayer has just counted on route as pending until its check
// across the replicas ends (settle); the caller holds c.mu.
func (c *counter) notePending(route *Route) {
	if c.replicas != nil && route.MaxPlayers > 0 {
		c.players.pending[route.Label()]++
	}
}

// settle counts a pending join on label as a player: Seat decided without asking.
func (c *counter) settle(label string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	drop(c.players.pending, label)
}

// seatCount counts the join asking on label as a player, raises the players' version and reads
// label's players with it: not the joins still waiting for their turn to ask (counting them
// would refuse a join that fits for joins that may yet be refused).
func (c *counter) seatCount(label string) (here int, version uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	drop(c.players.pending, label)
	c.players.version++
	return c.players.perRoute[label] - c.players.pending[label], c.players.version
}

// blockedElsewhere says whether another replica blocked client's block list key.
func (s *Server) blockedElsewhere(client netip.Addr) bool {
	return s.replicas != nil && s.replicas.HasBlocks() && s.replicas.Blocked(s.counter.addrKey(client), time.Now())
}

// shareBlock tells the other replicas of a block of key this replica has just made.
func (s *Server) shareBlock(key netip.Addr) {
	if s.replicas != nil {
		s.replicas.Block(key, time.Now().Add(s.blocks.blockFor()))
	}
}

// clearSharedBlocks empties the shared block list with the local one.
func (s *Server) clearSharedBlocks() {
	if s.replicas == nil {
		return
	}
	if err := s.replicas.ClearBlocks(); err != nil {
		s.log.Warn().Err(err).Msg("the shared block list was not cleared; its entries end as they were set")
	}
}

// sharedRateWindow is the fixed window the replicas count a bucket's events in, and how many
// events one window allows: the time the bucket takes to refill (at least a second, at most a
// minute), and the burst, or the rate over the window where that is more. Over a long run that
// is the bucket's rate; across a window's edge up to twice its burst pass, and the others'
// events are up to a flush late: the shared count is approximate, and each replica's own
// bucket still holds.
func sharedRateWindow(rate, burst float64) (window time.Duration, allowed int) {
	secs := min(max(1, burst/max(rate, 1e-3)), 60)
	return time.Duration(secs * float64(time.Second)), int(max(burst, rate*secs))
}

// overShared counts one event of network in the shared count of what and says whether the
// replicas together are over buckets' rate for it; the caller holds c.mu.
func (c *counter) overShared(what string, network netip.Prefix, buckets *rateBuckets[netip.Prefix]) bool {
	if c.replicas == nil {
		return false
	}
	window, allowed := sharedRateWindow(buckets.rate, buckets.burst)
	return c.replicas.Count(what+":"+network.String(), window) > allowed
}

// withOtherReplicas adds the other replicas' latest attack mode measurement to this one's, so
// that a flood spread over the replicas starts the mode on every one of them.
func (s *Server) withOtherReplicas(perSecond [attackKinds]float64) [attackKinds]float64 {
	if s.replicas == nil {
		return perSecond
	}
	others := s.replicas.AttackRates(perSecond)
	for kind := range attackKinds {
		perSecond[kind] += others[kind]
	}
	return perSecond
}
