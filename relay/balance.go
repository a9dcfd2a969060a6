package relay

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
)

// Balance is the order in which a route offers a new session to its backends. Whatever the
// order, the next backend is tried only while no byte reached the previous one.
type Balance string

const (
	BalanceFailover         Balance = "failover"          // in the order listed (also the zero value)
	BalanceRoundRobin       Balance = "round-robin"       // each session starts one further down the list
	BalanceRandom           Balance = "random"            // each session starts at a random backend
	BalanceLeastConnections Balance = "least-connections" // fewest running sessions first; ties in list order
)

func (b Balance) check() error {
	switch b {
	case "", BalanceFailover, BalanceRoundRobin, BalanceRandom, BalanceLeastConnections:
		return nil
	}
	return fmt.Errorf("balance %q: want failover, round-robin, random or least-connections", b)
}

// balancer is a route's state for its Balance: the round-robin position.
type balancer struct {
	next atomic.Uint64
}

// dialOrder is the order in which this session tries r's backends. Round-robin and random
// rotate the list, so that when the first choice fails the rest are still tried once each.
func (r *Route) dialOrder() []*backendState {
	n := len(r.backends)
	switch r.Balance {
	case BalanceRoundRobin:
		return rotate(r.backends, int((r.balancer.next.Add(1)-1)%uint64(n)))
	case BalanceRandom:
		return rotate(r.backends, rand.IntN(n))
	case BalanceLeastConnections:
		order := slices.Clone(r.backends)
		slices.SortStableFunc(order, func(a, b *backendState) int {
			return int(a.active.Load() - b.active.Load())
		})
		return order
	}
	return r.backends
}

func rotate(backends []*backendState, start int) []*backendState {
	return append(slices.Clone(backends[start:]), backends[:start]...)
}
