package relay

import (
	"net/netip"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// NetworkLimits count a client's network, not only its address: a flood from one /24 (a VPS
// provider's block) or one IPv6 /64 spreads over many addresses, each under its own limits.
// Every count is keyed by the trusted client address (after a trusted PROXY or forwarded
// header), as the per-address ones are, and moves with it (connInfo.claim).
//
// The defaults leave room for a school or a carrier-grade NAT with 50 players behind one /24
// logging in at once (a class at the bell, everyone back after a restart), about twice over,
// and hold a flood from one /24 to tens of connections a second instead of thousands.
type NetworkLimits struct {
	// IPv4NetworkPrefix is how many leading bits of an IPv4 address make its network (24: the
	// smallest block routed on the internet, what a provider rents out as one).
	IPv4NetworkPrefix int `yaml:"ipv4_network_prefix"`
	// IPv6NetworkPrefix is the same for IPv6 (64: the network an ISP gives one customer). It is
	// at most ipv6_prefix, so a network always holds whole "addresses"; at the default both are
	// /64, and an IPv6 client's network limits are its address limits, only looser.
	IPv6NetworkPrefix int `yaml:"ipv6_network_prefix"`
	// MaxConnectionsPerNetwork bounds the open connections of one network (200: 50 players'
	// sessions with their pings and reconnects in flight, twice over, while one /24 without it
	// could hold 254 x max_connections_per_ip idle sockets).
	MaxConnectionsPerNetwork int `yaml:"max_connections_per_network"`
	// ConnectionRatePerNetwork and ConnectionBurstPerNetwork meter the new connections of one
	// network (20 a second, 100 at once: each of 50 players pinging and joining together).
	ConnectionRatePerNetwork  float64 `yaml:"connection_rate_per_network"`
	ConnectionBurstPerNetwork int     `yaml:"connection_burst_per_network"`
	// StatusRatePerNetwork and StatusBurstPerNetwork meter server-list pings (a hello saying
	// status, or a legacy ping): 10 a second, 100 at once, for 50 server lists opened together
	// and refreshed; a ping flood from one network gets 10 answers a second.
	StatusRatePerNetwork  float64 `yaml:"status_rate_per_network"`
	StatusBurstPerNetwork int     `yaml:"status_burst_per_network"`
	// LoginRatePerNetwork and LoginBurstPerNetwork meter logins (a hello saying login or
	// transfer, which Login Start follows): 5 a second, 100 at once, for 50 players joining
	// together twice; a bot flood from one network gets 5 logins a second.
	LoginRatePerNetwork  float64 `yaml:"login_rate_per_network"`
	LoginBurstPerNetwork int     `yaml:"login_burst_per_network"`
}

func defaultNetworkLimits() NetworkLimits {
	return NetworkLimits{
		IPv4NetworkPrefix: 24, IPv6NetworkPrefix: 64, MaxConnectionsPerNetwork: 200,
		ConnectionRatePerNetwork: 20, ConnectionBurstPerNetwork: 100,
		StatusRatePerNetwork: 10, StatusBurstPerNetwork: 100,
		LoginRatePerNetwork: 5, LoginBurstPerNetwork: 100,
	}
}

// withDefaults fills the zero fields; ipv6Prefix is the per-address prefix the IPv6 network
// may not be narrower than.
func (n NetworkLimits) withDefaults(ipv6Prefix int) NetworkLimits {
	d := defaultNetworkLimits()
	return NetworkLimits{
		IPv4NetworkPrefix:         positiveOr(min(n.IPv4NetworkPrefix, 32), d.IPv4NetworkPrefix),
		IPv6NetworkPrefix:         min(positiveOr(n.IPv6NetworkPrefix, d.IPv6NetworkPrefix), ipv6Prefix),
		MaxConnectionsPerNetwork:  positiveOr(n.MaxConnectionsPerNetwork, d.MaxConnectionsPerNetwork),
		ConnectionRatePerNetwork:  positiveOr(n.ConnectionRatePerNetwork, d.ConnectionRatePerNetwork),
		ConnectionBurstPerNetwork: positiveOr(n.ConnectionBurstPerNetwork, d.ConnectionBurstPerNetwork),
		StatusRatePerNetwork:      positiveOr(n.StatusRatePerNetwork, d.StatusRatePerNetwork),
		StatusBurstPerNetwork:     positiveOr(n.StatusBurstPerNetwork, d.StatusBurstPerNetwork),
		LoginRatePerNetwork:       positiveOr(n.LoginRatePerNetwork, d.LoginRatePerNetwork),
		LoginBurstPerNetwork:      positiveOr(n.LoginBurstPerNetwork, d.LoginBurstPerNetwork),
	}
}

// networkKey is the network addr is counted in: its IPv4 /IPv4NetworkPrefix (an IPv4-mapped
// address as the IPv4 address it is) or its IPv6 /IPv6NetworkPrefix.
func (c *counter) networkKey(addr netip.Addr) netip.Prefix {
	return networkOf(addr, c.limits.NetworkLimits)
}

// networkOf is the network addr is in under limits' prefixes.
func networkOf(addr netip.Addr, limits NetworkLimits) netip.Prefix {
	addr = addr.Unmap().WithZone("")
	bits := limits.IPv4NetworkPrefix
	if addr.Is6() {
		bits = limits.IPv6NetworkPrefix
	}
	network, _ := addr.Prefix(bits) // within the family's length: fails only for no address
	return network
}

// networkLimits are the network prefixes now, for a goroutine that does not hold c.mu.
func (c *counter) networkLimits() NetworkLimits {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limits.NetworkLimits
}

// networkFor is networkKey for a caller that does not hold c.mu.
func (c *counter) networkFor(addr netip.Addr) netip.Prefix {
	return networkOf(addr, c.networkLimits())
}

// meterHello takes a token from the client network's status bucket for a server-list ping
// (legacy ones too), or from its login bucket for a join (or a transfer), and counts the hello
// toward the attack mode's measurement, refused or not.
func (c *counter) meterHello(addr netip.Addr, hello mc.Hello) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	network := c.networkKey(addr)
	buckets, reason, kind := &c.logins, refusedLoginRate, kindLogin
	if hello.IsPing() {
		buckets, reason, kind = &c.pings, refusedStatusRate, kindPing
	}
	c.shares.note(network, kind)
	if !buckets.take(network, time.Now()) {
		return &LimitError{Reason: reason, Limit: buckets.String()}
	}
	if kind == kindLogin && c.overShared("logins", network, buckets) {
		buckets.giveBack(network)
		return &LimitError{Reason: reason, Limit: buckets.String() + " over all replicas"}
	}
	return nil
}

// strictFactor is what setStrict divides the new-connection rates and bursts by.
const strictFactor = 4

// setStrict tightens (true) or restores (false) the new-connection buckets, per address and
// per network: while strict they refill at a strictFactor-th of their rate and hold at most a
// strictFactor-th of their burst (at least one token), so a bucket fuller than that is cut
// down at its next connection. Open-connection counts, pings, logins and sessions already
// running are not touched. It is for attack mode.
func (c *counter) setStrict(strict bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.strict = strict
	c.applyRates()
}

// applyRates sets the buckets' rates and bursts from the limits (divided while strict); the
// caller holds mu.
func (c *counter) applyRates() {
	l, f := c.limits, 1.0
	if c.strict {
		f = strictFactor
	}
	c.addrRate.set(l.ConnectionRate/f, max(1, float64(l.ConnectionBurst)/f))
	c.netRate.set(l.ConnectionRatePerNetwork/f, max(1, float64(l.ConnectionBurstPerNetwork)/f))
	c.pings.set(l.StatusRatePerNetwork, float64(l.StatusBurstPerNetwork))
	c.logins.set(l.LoginRatePerNetwork, float64(l.LoginBurstPerNetwork))
}

// refuseOverLimit answers a session a limit refused with the limit's words, and counts it.
func (s *session) refuseOverLimit(o *opening, err error) {
	s.srv.countRefusal(limitReason(err))
	s.line.answered = "limit"
	s.answer(o.r, o.hello, refusalAnswer(s.fallback(), err), err)
}
