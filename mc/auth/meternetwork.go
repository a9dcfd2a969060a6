package auth

import (
	"errors"
	"net/netip"
	"time"
)

// The meter's fairness between client networks (the relay's network key: an IPv4 /24 or an
// IPv6 /64 at the defaults). While anyone waits, a network has at most one request queued or
// in flight, so that one network's logins cannot fill the queue; and a request the session
// server refused (a login without an account) bars its network for a pause that doubles with
// each refusal in a row, so that a network that never logs in spends few of the meter's turns.
// Every method here runs under m.mu.

// Penalty bounds: a network whose request the session server refused waits networkPenaltyBase
// before its next, twice that after a second refusal in a row, and so on up to
// networkPenaltyMax; a success ends the doubling, and so does a clean spell of
// networkPenaltyMax after the pause (the network is forgotten).
const (
	networkPenaltyBase = time.Second
	networkPenaltyMax  = 30 * time.Second
)

// meterNetwork is what the meter knows of one client network.
type meterNetwork struct {
	pending  int       // requests queued or in flight
	refusals int       // requests in a row the session server refused
	until    time.Time // no request before this: the pause after the last refusal
}

// network is the entry of network, made when create is set; nil for no network (a caller that
// knows none) or an unmetered meter, which counts no network.
func (m *Meter) network(network netip.Prefix, create bool) *meterNetwork {
	if !network.IsValid() || m.set.Rate <= 0 {
		return nil
	}
	n := m.networks[network]
	if n == nil && create {
		n = &meterNetwork{}
		m.networks[network] = n
	}
	return n
}

// networkRefusal is why network's login gets no turn now (nil: none): its pause after a
// refusal, or, when the turn would not be free, a request of its own already queued or in flight.
func (m *Meter) networkRefusal(network netip.Prefix, free bool, now time.Time) *MeterError {
	n := m.network(network, false)
	switch {
	case n == nil:
		return nil
	case now.Before(n.until):
		return &MeterError{Reason: MeterNetworkBackoff, Wait: n.until.Sub(now)}
	case !free && n.pending > 0:
		return &MeterError{Reason: MeterNetworkBusy}
	}
	return nil
}

// hold counts a request of network queued or given its turn.
func (m *Meter) hold(network netip.Prefix) {
	if n := m.network(network, true); n != nil {
		n.pending++
	}
}

// unhold ends a request of network that left the queue without a turn.
func (m *Meter) unhold(network netip.Prefix) {
	if n := m.networks[network]; n != nil {
		n.pending--
		m.tidy(network, n)
	}
}

// settle ends a request of network whose hasJoined came back with err: a refusal by the
// session server starts the network's pause, a success ends the doubling; a session server
// that failed says nothing of the network (the whole meter pauses for that).
func (m *Meter) settle(network netip.Prefix, err error, now time.Time) {
	n := m.networks[network] // also when the meter became unmetered since
	if n == nil {
		return
	}
	n.pending--
	switch {
	case errors.Is(err, ErrNotAuthenticated) && m.set.Rate > 0:
		n.refusals++
		n.until = now.Add(doubled(networkPenaltyBase, n.refusals-1, networkPenaltyMax))
	case err == nil:
		n.refusals = 0
	}
	m.tidy(network, n)
}

// tidy forgets network once it has nothing pending and no refusal to remember.
func (m *Meter) tidy(network netip.Prefix, n *meterNetwork) {
	if n.pending == 0 && n.refusals == 0 {
		delete(m.networks, network)
	}
}

// forgetNetworks drops the networks with nothing queued or in flight whose last pause ended
// networkPenaltyMax ago or more, at most once a second. The map so holds at most the networks
// with a request pending (the queue, and the requests in flight) and those refused within the
// last 2 x networkPenaltyMax: each of those spent one of the meter's turns, so at most Burst +
// Rate x 60 s of them (94 at the defaults).
func (m *Meter) forgetNetworks(now time.Time) {
	if now.Sub(m.forgotAt) < time.Second {
		return
	}
	m.forgotAt = now
	for key, n := range m.networks {
		if n.pending == 0 && now.Sub(n.until) >= networkPenaltyMax {
			delete(m.networks, key)
		}
	}
}
