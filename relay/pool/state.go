package pool

// BackendState is one backend as its pool sees it now, for the dashboard.
type BackendState struct {
	Addr     string
	Checked  bool  // the route checks its backends (a health check mode other than off)
	Up       bool  // the check lets players go to it; always true when not checked
	Sessions int64 // sessions relayed to it now
}

// States are p's backends as they stand, in the configured order.
func (p *Pool) States() []BackendState {
	out := make([]BackendState, len(p.members))
	for i, m := range p.members {
		out[i] = BackendState{Addr: m.Addr, Checked: p.cfg.HealthCheck.enabled(), Up: m.up.Load(), Sessions: m.active.Load()}
	}
	return out
}
