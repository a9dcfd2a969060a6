package relay

import (
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/relay/mc"
)

// Limits are on by default (DefaultLimits); a zero field means the default, not "unlimited".
type Limits struct {
	MaxConnections      int           // open client connections in total
	MaxConnectionsPerIP int           // per client address (after PROXY / forwarded headers)
	SniffTimeout        time.Duration // for the first bytes that decide the protocol
	HandshakeTimeout    time.Duration // from accept until the Minecraft handshake is read
	MaxHandshakeFrame   int           // bytes of the handshake body
	MaxProxyHeader      int           // bytes of an incoming PROXY header
	DialTimeout         time.Duration // per backend
}

// DefaultLimits are what a server owner gets without configuring anything.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:      10000,
		MaxConnectionsPerIP: 50,
		SniffTimeout:        5 * time.Second,
		HandshakeTimeout:    10 * time.Second,
		MaxHandshakeFrame:   mc.DefaultMaxHandshakeFrame,
		MaxProxyHeader:      DefaultMaxProxyHeader,
		DialTimeout:         5 * time.Second,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	pickDuration := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	return Limits{
		MaxConnections:      pick(l.MaxConnections, d.MaxConnections),
		MaxConnectionsPerIP: pick(l.MaxConnectionsPerIP, d.MaxConnectionsPerIP),
		SniffTimeout:        pickDuration(l.SniffTimeout, d.SniffTimeout),
		HandshakeTimeout:    pickDuration(l.HandshakeTimeout, d.HandshakeTimeout),
		MaxHandshakeFrame:   pick(l.MaxHandshakeFrame, d.MaxHandshakeFrame),
		MaxProxyHeader:      pick(l.MaxProxyHeader, d.MaxProxyHeader),
		DialTimeout:         pickDuration(l.DialTimeout, d.DialTimeout),
	}
}

// LimitError says which limit refused a connection.
type LimitError struct {
	Limit string // "connections" or "connections per address"
	Max   int
}

func (e *LimitError) Error() string {
	return "over the limit of " + strconv.Itoa(e.Max) + " " + e.Limit
}

// counter counts open connections, in total and per client address.
type counter struct {
	mu       sync.Mutex
	total    int
	perAddr  map[netip.Addr]int
	maxTotal int
	maxAddr  int
}

func newCounter(l Limits) *counter {
	return &counter{perAddr: make(map[netip.Addr]int), maxTotal: l.MaxConnections, maxAddr: l.MaxConnectionsPerIP}
}

// acquireTotal takes a slot in the total count; release gives it back.
func (c *counter) acquireTotal() (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total >= c.maxTotal {
		return nil, &LimitError{Limit: "connections", Max: c.maxTotal}
	}
	c.total++
	return sync.OnceFunc(func() { c.mu.Lock(); c.total--; c.mu.Unlock() }), nil
}

// acquireAddr takes a slot for one client address.
func (c *counter) acquireAddr(addr netip.Addr) (release func(), err error) {
	addr = addr.Unmap()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perAddr[addr] >= c.maxAddr {
		return nil, &LimitError{Limit: "connections per address", Max: c.maxAddr}
	}
	c.perAddr[addr]++
	return sync.OnceFunc(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.perAddr[addr]--; c.perAddr[addr] <= 0 {
			delete(c.perAddr, addr)
		}
	}), nil
}
