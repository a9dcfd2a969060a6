package flood

import (
	"fmt"
	"net/netip"
)

// Sources hands out the flood's source addresses: 127.A.B.H with the network A.B counted from
// 127.10.0.0/24 upward over Networks /24s, and the host H from 1 to 254. Connection i takes
// network i mod Networks, so consecutive connections come from different /24s; a step that
// starts at Offset uses addresses the steps before it did not (a block list from one step does
// not refuse the next). 127.0.0.0/16 to 127.9.0.0/16 stay free for the legitimate players.
// Hosts narrows each /24 to its first Hosts addresses (1: one address per /24).
type Sources struct {
	Networks int // /24s to spread over: 1 is one /24, at most maxNetworks
	Hosts    int // addresses per /24, .1 upward: 0 is all 254
	Offset   uint64
}

// maxNetworks is 127.10.0.0 to 127.255.255.0.
const maxNetworks = (256 - 10) * 256

// hostsPerNetwork are .1 to .254.
const hostsPerNetwork = 254

// Check refuses a number of networks that does not fit 127.10.0.0-127.255.255.255.
func (s Sources) Check() error {
	if s.Networks < 1 || s.Networks > maxNetworks {
		return fmt.Errorf("flood: %d source networks: want 1 to %d", s.Networks, maxNetworks)
	}
	if s.Hosts < 0 || s.Hosts > hostsPerNetwork {
		return fmt.Errorf("flood: %d source addresses per network: want 0 (all) to %d", s.Hosts, hostsPerNetwork)
	}
	return nil
}

// Addr is connection i's source address.
func (s Sources) Addr(i uint64) netip.Addr {
	i += s.Offset
	n := uint64(s.Networks)
	network := i % n
	host := (i/n)%s.hosts() + 1
	network += 10 * 256 // from 127.10.0.0
	return netip.AddrFrom4([4]byte{127, byte(network >> 8), byte(network), byte(host)})
}

// Distinct is how many different addresses count connections use.
func (s Sources) Distinct(count uint64) uint64 {
	return min(count, uint64(s.Networks)*s.hosts())
}

// hosts is the addresses used in each /24.
func (s Sources) hosts() uint64 {
	if s.Hosts == 0 {
		return hostsPerNetwork
	}
	return uint64(s.Hosts)
}

// PlayerSources hands out the legitimate players' source addresses: PerNetwork players in each
// /24 from 127.1.0.0/24 upward (127.1.0.1-PerNetwork, then 127.1.1.x, ...), as ordinary players
// come from many networks, a few per household or campus. Player i takes Addr(i).
type PlayerSources struct{ PerNetwork int }

// maxPlayerNetworks is 127.1.0.0 to 127.9.255.0, below the flood's networks.
const maxPlayerNetworks = 9 * 256

// Check refuses a PerNetwork outside 1-254 or more players than 127.1-127.9 holds.
func (p PlayerSources) Check(players int) error {
	if p.PerNetwork < 1 || p.PerNetwork > hostsPerNetwork {
		return fmt.Errorf("flood: %d players per network: want 1 to %d", p.PerNetwork, hostsPerNetwork)
	}
	if players > p.PerNetwork*maxPlayerNetworks {
		return fmt.Errorf("flood: %d players at %d per network do not fit 127.1.0.0-127.9.255.255", players, p.PerNetwork)
	}
	return nil
}

// Addr is player i's source address.
func (p PlayerSources) Addr(i uint64) netip.Addr {
	network := i/uint64(p.PerNetwork) + 256 // from 127.1.0.0
	host := i%uint64(p.PerNetwork) + 1
	return netip.AddrFrom4([4]byte{127, byte(network >> 8), byte(network), byte(host)})
}
