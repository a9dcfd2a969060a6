package auth

import "time"

// MeterState is the login meter as it stands, for the dashboard: the same counts as its
// Prometheus series, read in one go.
type MeterState struct {
	Settings  MeterSettings
	Sent      float64       // hasJoined requests let through since the start
	Waiting   int           // players in the queue now
	Refused   float64       // logins refused since the start, every reason together
	Strict    bool          // attack mode holds the burst at 1 (SetStrict)
	PausedFor time.Duration // how long the session server's pause still lasts; 0 when none
}

// State is m's state now; the zero state for a nil Meter (no online route).
func (m *Meter) State() MeterState {
	if m == nil {
		return MeterState{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := MeterState{Settings: m.set, Sent: m.counts.sent, Waiting: len(m.queue), Strict: m.strict,
		PausedFor: max(0, time.Until(m.pausedUntil))}
	for _, n := range m.counts.refused {
		st.Refused += n
	}
	return st
}
