package pool

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// dialOrder is the order in which this session tries p's backends. Round-robin and random
// rotate the list, so that when the first choice fails the rest are still tried once each.
func (p *Pool) dialOrder() []*member {
	n := len(p.members)
	switch p.cfg.Balance {
	case BalanceRoundRobin:
		return rotate(p.members, int((p.next.Add(1)-1)%uint64(n)))
	case BalanceRandom:
		return rotate(p.members, rand.IntN(n))
	case BalanceLeastConnections:
		order := slices.Clone(p.members)
		slices.SortStableFunc(order, func(a, b *member) int {
			return int(a.active.Load() - b.active.Load())
		})
		return order
	}
	return p.members
}

func rotate(members []*member, start int) []*member {
	return append(slices.Clone(members[start:]), members[:start]...)
}
