package pool

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"
)

// HealthMode is how a pool checks its backends.
type HealthMode string

const (
	HealthOff    HealthMode = "off"    // no checks: every backend is tried in order (also the zero value)
	HealthTCP    HealthMode = "tcp"    // a TCP connect, closed at once without a byte
	HealthStatus HealthMode = "status" // a server-list ping: handshake, status request, a valid answer
)

// HealthCheck says how a route checks its backends. Zero durations and counts take the
// defaults of DefaultHealthCheck; a zero Mode is off.
type HealthCheck struct {
	Mode     HealthMode
	Interval time.Duration // from one check to the next
	Timeout  time.Duration // for one check, connect and answer
	Rise     int           // consecutive passed checks that bring a down backend back
	Fall     int           // consecutive failed checks that take an up backend out
}

// DefaultHealthCheck is what cmd's config uses for a route that says nothing: a TCP connect
// every 10 s, down after three failures in a row (30 s), up again after two passes.
func DefaultHealthCheck() HealthCheck {
	return HealthCheck{Mode: HealthTCP, Interval: 10 * time.Second, Timeout: 2 * time.Second, Rise: 2, Fall: 3}
}

func (h HealthCheck) enabled() bool { return h.Mode == HealthTCP || h.Mode == HealthStatus }

// withDefaults checks the mode and fills in zero fields.
func (h HealthCheck) withDefaults() (HealthCheck, error) {
	switch h.Mode {
	case "", HealthOff:
		return HealthCheck{Mode: HealthOff}, nil
	case HealthTCP, HealthStatus:
	default:
		return h, fmt.Errorf("health check mode %q: want tcp, status or off", h.Mode)
	}
	d := DefaultHealthCheck()
	if h.Interval <= 0 {
		h.Interval = d.Interval
	}
	if h.Timeout <= 0 {
		h.Timeout = d.Timeout
	}
	if h.Rise <= 0 {
		h.Rise = d.Rise
	}
	if h.Fall <= 0 {
		h.Fall = d.Fall
	}
	return h, nil
}

// Start runs p's health checks, one checker per backend whose address names no capture, and
// its idle stop, on the server's goroutines until ctx ends (a Reload replaced p's settings, or
// the server closes).
func (p *Pool) Start(ctx context.Context) {
	if w := p.waker; w != nil && w.cfg.StopAfterIdle > 0 {
		p.env.Go(func() { w.watchIdle(ctx) })
	}
	if !p.cfg.HealthCheck.enabled() {
		return
	}
	for _, m := range p.members {
		if m.templated() {
			continue // its address depends on the player's host: nothing to check
		}
		p.env.Go(func() { p.watch(ctx, m) })
	}
}

// watch checks m at once and then every interval until ctx ends.
func (p *Pool) watch(ctx context.Context, m *member) {
	hc := p.cfg.HealthCheck
	ticker := time.NewTicker(hc.Interval)
	defer ticker.Stop()
	log := p.env.Log.With().Str("route", p.cfg.Route).Str("backend", m.Addr).Str("check", string(hc.Mode)).Logger()
	for {
		checkCtx, cancel := context.WithTimeout(ctx, hc.Timeout)
		err := p.probe(checkCtx, m)
		cancel()
		if ctx.Err() != nil {
			return
		}
		m.record(err, hc, log)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// record counts one check result and changes the state, with one log line, when rise passes or
// fall failures in a row say so.
func (m *member) record(err error, hc HealthCheck, log zerolog.Logger) {
	if err == nil {
		m.passed, m.failed = m.passed+1, 0
		if !m.up.Load() && m.passed >= hc.Rise {
			m.up.Store(true)
			log.Info().Int("passed_checks", m.passed).Msg("backend up: its health check passes again")
		}
		return
	}
	m.passed, m.failed = 0, m.failed+1
	if m.up.Load() && m.failed >= hc.Fall {
		m.up.Store(false)
		log.Warn().Err(err).Int("failed_checks", m.failed).Msg("backend down: its health check fails")
	}
}
