package relay

import (
	"net/netip"
	"time"
)

// attackKind is what the attack mode measures: new connections, status pings, logins.
type attackKind int

const (
	kindConnection attackKind = iota
	kindPing
	kindLogin
	attackKinds
)

// maxShareNetworks bounds the networks whose shares one measurement keeps apart. Past it, a
// new network's events count in full: that many networks in one measurement is a spread
// flood, which is what the attack mode is for.
const maxShareNetworks = maxRateBuckets

// attackShares counts, between two measurements of the attack mode, each client network's new
// connections (refused ones included), status pings and logins. A measurement counts each
// network for at most what its own limits let it do in that time (shareCaps): one address or
// one network, however fast it floods, is held by its limits and cannot start the attack mode
// or keep it on; a flood from many networks still does. It lives under the counter's lock.
type attackShares struct {
	counts map[netip.Prefix]*[attackKinds]int
	beyond [attackKinds]int // events of networks past maxShareNetworks
}

// note counts one event of network; the caller holds the counter's lock.
func (a *attackShares) note(network netip.Prefix, kind attackKind) {
	if a.counts == nil {
		a.counts = map[netip.Prefix]*[attackKinds]int{}
	}
	n := a.counts[network]
	if n == nil {
		if len(a.counts) >= maxShareNetworks {
			a.beyond[kind]++
			return
		}
		n = new([attackKinds]int)
		a.counts[network] = n
	}
	n[kind]++
}

// take sums the shares, each network's capped at caps, and starts a new measurement.
func (a *attackShares) take(caps [attackKinds]float64) (sum [attackKinds]float64) {
	for _, n := range a.counts {
		for kind := range attackKinds {
			sum[kind] += min(float64(n[kind]), caps[kind])
		}
	}
	for kind := range attackKinds {
		sum[kind] += float64(a.beyond[kind])
	}
	*a = attackShares{}
	return sum
}

// shareCaps is what one network may count in a measurement of elapsed: its per-network rate
// (not the attack mode's stricter one) for that long, at least one.
func (l NetworkLimits) shareCaps(elapsed time.Duration) [attackKinds]float64 {
	secs := elapsed.Seconds()
	return [attackKinds]float64{
		kindConnection: max(1, l.ConnectionRatePerNetwork*secs),
		kindPing:       max(1, l.StatusRatePerNetwork*secs),
		kindLogin:      max(1, l.LoginRatePerNetwork*secs),
	}
}

// noteConnection counts a connection refused before it was counted under its address (by the
// total limit) toward the attack mode.
func (c *counter) noteConnection(addr netip.Addr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shares.note(c.networkKey(addr), kindConnection)
}

// takeShares is the attack mode's measurement of elapsed: per second, each network's share
// capped (attackShares).
func (c *counter) takeShares(elapsed time.Duration) (perSecond [attackKinds]float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sum := c.shares.take(c.limits.NetworkLimits.shareCaps(elapsed))
	secs := max(elapsed.Seconds(), 1e-3)
	for kind := range attackKinds {
		perSecond[kind] = sum[kind] / secs
	}
	return perSecond
}
