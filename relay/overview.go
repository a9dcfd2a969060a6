package relay

import (
	"slices"
	"time"

	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// Overview is the server at a glance, for the admin dashboard: counts only, no player names
// or addresses. It is read from what the relay keeps anyway, as the metrics are.
type Overview struct {
	Routes   []RouteOverview
	Sessions int // sessions running now: players, pings and handshakes under way
	Players  int // players on every route (see players)
	// RelayedUp and RelayedDown are the bytes relayed since the start (player to backend, and
	// back), live sessions included: moonbridge_relayed_bytes_total summed over protocols.
	RelayedUp, RelayedDown int64
	AttackMode             bool
	AttackActivations      int64
	Blocked                int // addresses (IPv6: networks) on the block list now
	MemoryRefusing         bool
	LoginMeter             auth.MeterState
}

// RouteOverview is one route: its players and its backends' state.
type RouteOverview struct {
	Label        string
	Hosts, Paths []string
	Players      int
	MaxPlayers   int // 0: no cap of its own
	Backends     []pool.BackendState
}

// Overview is the server's state now.
func (s *Server) Overview() Overview {
	o := Overview{
		AttackMode:        s.underAttack(),
		AttackActivations: s.attack.activations.Load(),
		Blocked:           s.blocks.size(time.Now()),
		MemoryRefusing:    s.mem.refusing.Load(),
		LoginMeter:        s.meter.State(),
	}
	o.Sessions, o.RelayedUp, o.RelayedDown = s.relayedNow()
	router := s.settings().router
	for i := range router.routes {
		r := &router.routes[i]
		players := s.counter.routePlayers(r)
		o.Players += players
		o.Routes = append(o.Routes, RouteOverview{Label: r.Label(), Hosts: slices.Clone(r.Hosts), Paths: slices.Clone(r.Paths), Players: players,
			MaxPlayers: r.MaxPlayers, Backends: r.pool.States()})
	}
	return o
}

// relayedNow counts the sessions running and the bytes relayed so far, theirs included.
func (s *Server) relayedNow() (sessions int, up, down int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, n := range s.tally.bytes {
		if k[1] == "up" {
			up += int64(n)
		} else {
			down += int64(n)
		}
	}
	for sess := range s.sessions {
		u, d := sess.relayed()
		up, down = up+u, down+d
	}
	return len(s.sessions), up, down
}
