package relay

import "github.com/moonbridge/moonbridge/mc/auth"

// ShareLoginMeter makes the login meter this replica's share of a budget that replicas
// replicas spend together (those that reach the session server from one egress address, whose
// allowance Mojang counts per address): login.meter's rate and burst divided by replicas (the
// burst at least 1), the queue and its wait as they are. 1 or less is the whole budget. It
// holds across reloads until the next call.
func (s *Server) ShareLoginMeter(replicas int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meterReplicas = max(replicas, 1)
	s.meter.Configure(s.meterShare(s.settings().LoginMeter))
}

// meterShare is set divided among the replicas that share its budget; s.mu is held.
func (s *Server) meterShare(set auth.MeterSettings) auth.MeterSettings {
	if n := s.meterReplicas; n > 1 {
		set.Rate /= float64(n)
		set.Burst = max(set.Burst/n, 1)
	}
	return set
}
