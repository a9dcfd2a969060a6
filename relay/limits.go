package relay

import (
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// Limits are on by default (DefaultLimits); a zero field means the default, not "unlimited"
// (MaxPlayersPerAddress, whose default is none, aside). The config file's limits section is
// this struct: the yaml tags are its keys, and fields tagged "-" are not in the file.
type Limits struct {
	MaxConnections      int `yaml:"max_connections"`        // open client connections in total, counted from accept
	MaxConnectionsPerIP int `yaml:"max_connections_per_ip"` // per client address, counted from accept (see addrSlot)
	// IPv6Prefix is how many leading bits of an IPv6 address make one "address" for the
	// per-address limits: an ISP gives a customer a whole /64 (or more), so counting per /128
	// would let one host spread over 2^64 addresses. 128 counts each address on its own.
	IPv6Prefix int `yaml:"ipv6_prefix"`
	// ConnectionRate is how many new connections per second one address may open on average,
	// ConnectionBurst how many at once (a token bucket per address).
	ConnectionRate  float64 `yaml:"connection_rate_per_ip"`
	ConnectionBurst int     `yaml:"connection_burst_per_ip"`
	NetworkLimits   `yaml:",inline"`
	// MaxPlayersPerAddress bounds the players (sessions whose login went on to a backend) of
	// one client address; 0: none, the default, since a school or a carrier-grade NAT puts
	// dozens of real players behind one address, and MaxConnectionsPerIP bounds them anyway.
	MaxPlayersPerAddress int           `yaml:"max_players_per_address"`
	SniffTimeout         time.Duration `yaml:"-"`                  // for the first bytes that decide the protocol
	HandshakeTimeout     time.Duration `yaml:"handshake_timeout"`  // from accept through TLS, HTTP upgrade and Minecraft handshake
	MaxHandshakeFrame    int           `yaml:"max_handshake_size"` // bytes of the handshake body
	MaxProxyHeader       int           `yaml:"-"`                  // bytes of an incoming PROXY header
	DialTimeout          time.Duration `yaml:"dial_timeout"`       // per backend
}

// DefaultLimits are what a server owner gets without configuring anything. The rate fits a
// server-list ping, a login and a few reconnects of one player with room to spare.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:      10000,
		MaxConnectionsPerIP: 50,
		IPv6Prefix:          64,
		ConnectionRate:      5,
		ConnectionBurst:     10,
		NetworkLimits:       defaultNetworkLimits(),
		SniffTimeout:        5 * time.Second,
		HandshakeTimeout:    10 * time.Second,
		MaxHandshakeFrame:   mc.DefaultMaxHandshakeFrame,
		MaxProxyHeader:      clientaddr.DefaultMaxHeader,
		DialTimeout:         5 * time.Second,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	out := Limits{
		MaxConnections:       positiveOr(l.MaxConnections, d.MaxConnections),
		MaxConnectionsPerIP:  positiveOr(l.MaxConnectionsPerIP, d.MaxConnectionsPerIP),
		IPv6Prefix:           positiveOr(min(l.IPv6Prefix, 128), d.IPv6Prefix),
		ConnectionRate:       positiveOr(l.ConnectionRate, d.ConnectionRate),
		ConnectionBurst:      positiveOr(l.ConnectionBurst, d.ConnectionBurst),
		MaxPlayersPerAddress: max(l.MaxPlayersPerAddress, 0),
		SniffTimeout:         positiveOr(l.SniffTimeout, d.SniffTimeout),
		HandshakeTimeout:     positiveOr(l.HandshakeTimeout, d.HandshakeTimeout),
		MaxHandshakeFrame:    positiveOr(l.MaxHandshakeFrame, d.MaxHandshakeFrame),
		MaxProxyHeader:       positiveOr(l.MaxProxyHeader, d.MaxProxyHeader),
		DialTimeout:          positiveOr(l.DialTimeout, d.DialTimeout),
	}
	out.NetworkLimits = l.NetworkLimits.withDefaults(out.IPv6Prefix)
	return out
}

func positiveOr[T int | float64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// LimitError says which limit refused a connection.
type LimitError struct {
	Reason string // the refusal reason of the metrics, e.g. connections_per_address
	Limit  string // what the limit is, in words: "50 connections per address"
}

func (e *LimitError) Error() string { return "over the limit of " + e.Limit }

func limitError(reason string, max int, what string) *LimitError {
	return &LimitError{Reason: reason, Limit: strconv.Itoa(max) + " " + what}
}

// counter counts open connections: in total, per client address, per client network and per
// route, new connections per address and per network, and status pings and logins per network
// (rateBuckets), players (players.go), and each network's share of the attack mode's
// measurement (attackShares). One lock guards all, so a connection moving from one address to
// another is never counted for neither.
type counter struct {
	mu       sync.Mutex
	limits   Limits
	strict   bool // new-connection rates divided by strictFactor (setStrict)
	total    int
	perAddr  map[netip.Addr]int
	perNet   map[netip.Prefix]int
	perRoute map[*Route]int
	addrRate rateBuckets[netip.Addr]   // new connections per address
	netRate  rateBuckets[netip.Prefix] // new connections per network
	pings    rateBuckets[netip.Prefix] // status pings per network
	logins   rateBuckets[netip.Prefix] // logins per network
	players  players
	shares   attackShares
	replicas Replicas // the rates shared with other replicas; nil: none (replicas.go)
}

func newCounter(l Limits) *counter {
	c := &counter{
		limits: l, perAddr: make(map[netip.Addr]int), perNet: make(map[netip.Prefix]int), perRoute: make(map[*Route]int),
		addrRate: newRateBuckets[netip.Addr]("new connections per second per address", l.ConnectionRate, l.ConnectionBurst),
		netRate:  newRateBuckets[netip.Prefix]("new connections per second per network", l.ConnectionRatePerNetwork, l.ConnectionBurstPerNetwork),
		pings:    newRateBuckets[netip.Prefix]("status pings per second per network", l.StatusRatePerNetwork, l.StatusBurstPerNetwork),
		logins:   newRateBuckets[netip.Prefix]("logins per second per network", l.LoginRatePerNetwork, l.LoginBurstPerNetwork),
		players:  newPlayers(),
	}
	c.applyRates()
	return c
}

// acquireTotal takes a slot in the total count; release gives it back.
func (c *counter) acquireTotal() (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total >= c.limits.MaxConnections {
		return nil, limitError(refusedTotal, c.limits.MaxConnections, "connections")
	}
	c.total++
	held := true
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if held {
			held = false
			c.total--
		}
	}, nil
}

// acquireAddr takes a slot for one client address and one in its network, and a token from
// each one's new-connection bucket (only when the slots are free and both have a token, so a
// refused connection spends nothing). Each call is a connection arriving under addr (a trusted
// proxy's once it names its player), refused or not, for the attack mode's measurement.
func (c *counter) acquireAddr(addr netip.Addr) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, network := c.limitKey(addr), c.networkKey(addr) // they read limits, which reload changes
	c.shares.note(network, kindConnection)
	if c.perAddr[key] >= c.limits.MaxConnectionsPerIP {
		return nil, limitError(refusedPerAddr, c.limits.MaxConnectionsPerIP, "connections per address")
	}
	if c.perNet[network] >= c.limits.MaxConnectionsPerNetwork {
		return nil, limitError(refusedPerNetwork, c.limits.MaxConnectionsPerNetwork, "connections per network")
	}
	now := time.Now()
	if !c.addrRate.take(key, now) {
		return nil, &LimitError{Reason: refusedRate, Limit: c.addrRate.String()}
	}
	if !c.netRate.take(network, now) {
		c.addrRate.giveBack(key)
		return nil, &LimitError{Reason: refusedNetworkRate, Limit: c.netRate.String()}
	}
	if c.overShared("connections", network, &c.netRate) {
		c.addrRate.giveBack(key)
		c.netRate.giveBack(network)
		return nil, &LimitError{Reason: refusedNetworkRate, Limit: c.netRate.String() + " over all replicas"}
	}
	return takeTwo(&c.mu, c.perAddr, key, c.perNet, network), nil
}

// addrKey is limitKey for a caller that does not hold mu.
func (c *counter) addrKey(addr netip.Addr) netip.Addr {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limitKey(addr)
}

// limitKey is what addr is counted under: itself (IPv4, or an IPv4-mapped IPv6 address as the
// IPv4 address it is), or its IPv6 network of IPv6Prefix bits. The caller holds mu (a reload
// changes limits).
func (c *counter) limitKey(addr netip.Addr) netip.Addr {
	addr = addr.Unmap()
	if !addr.Is6() || c.limits.IPv6Prefix >= 128 {
		return addr
	}
	network, _ := addr.WithZone("").Prefix(c.limits.IPv6Prefix) // 1-127 bits: cannot fail
	return network.Addr()
}

// acquireRoute takes a slot in route's own limit. A route without one (MaxConnections 0)
// takes none, and release is nil: there is nothing for the session to keep.
func (c *counter) acquireRoute(route *Route) (release func(), err error) {
	if route.MaxConnections <= 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perRoute[route] >= route.MaxConnections {
		return nil, limitError(refusedRoute, route.MaxConnections, "connections on this route")
	}
	return takeTwo(&c.mu, c.perRoute, route, nil, route), nil
}

// takeTwo counts one more under keyA in a and under keyB in b (the caller holds mu; b nil: a
// slot in a alone) and returns what gives them back, together and once. An idle session keeps
// its releases for as long as it lasts: each is one closure and its flag (sync.OnceFunc would
// be three more allocations, a release per count one more closure).
func takeTwo[A, B comparable](mu *sync.Mutex, a map[A]int, keyA A, b map[B]int, keyB B) (release func()) {
	a[keyA]++
	if b != nil {
		b[keyB]++
	}
	held := true
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if held {
			held = false
			drop(a, keyA)
			drop(b, keyB)
		}
	}
}

// drop counts one less under key (none in a nil map); a key whose count is back to 0 leaves
// the map, so it holds only what is open.
func drop[K comparable](counts map[K]int, key K) {
	if counts == nil {
		return
	}
	if counts[key]--; counts[key] <= 0 {
		delete(counts, key)
	}
}
