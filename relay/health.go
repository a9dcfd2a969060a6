package relay

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// HealthMode is how a route checks its backends.
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

// backendState is one backend of one route as the relay sees it: its labels, whether its
// health check lets players be sent to it, and how often its dial failures are logged.
type backendState struct {
	Backend
	route string // the route's label
	up    atomic.Bool
	// passed and failed count consecutive check results; only the backend's checker uses them.
	passed, failed int
	// logSampler keeps a dead backend from flooding the log with a line per player.
	logSampler zerolog.Sampler
	// active counts the sessions relayed to this backend now, for least-connections.
	active atomic.Int64
}

// dialLogBurst lines per dialLogPeriod per backend are logged; the metrics count every failure.
const (
	dialLogBurst  = 5
	dialLogPeriod = 10 * time.Second
)

func newBackendState(b Backend, route string) *backendState {
	st := &backendState{Backend: b, route: route, logSampler: &zerolog.BurstSampler{Burst: dialLogBurst, Period: dialLogPeriod}}
	st.up.Store(true) // until checks say otherwise: a fresh start must not refuse players
	return st
}

// startHealthChecks starts one checker per backend of every route of set that checks. They run
// on s.wg until set is replaced by a Reload (its stopChecks) or the server closes (s.ctx).
func (s *Server) startHealthChecks(set *settings) {
	ctx, stop := context.WithCancel(s.ctx)
	set.stopChecks = stop
	s.startIdleStops(ctx, set)
	for i := range set.router.routes {
		route := &set.router.routes[i]
		if !route.HealthCheck.enabled() {
			continue
		}
		for _, b := range route.backends {
			if b.templated() {
				continue // its address depends on the player's host: nothing to check
			}
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.watchBackend(ctx, route, b) }()
		}
	}
}

// watchBackend checks b at once and then every interval until ctx ends.
func (s *Server) watchBackend(ctx context.Context, route *Route, b *backendState) {
	hc := route.HealthCheck
	ticker := time.NewTicker(hc.Interval)
	defer ticker.Stop()
	log := s.log.With().Str("route", b.route).Str("backend", b.Addr).Str("check", string(hc.Mode)).Logger()
	for {
		checkCtx, cancel := context.WithTimeout(ctx, hc.Timeout)
		err := probe(checkCtx, route, b)
		cancel()
		if ctx.Err() != nil {
			return
		}
		b.record(err, hc, log)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// record counts one check result and changes the state, with one log line, when rise passes or
// fall failures in a row say so.
func (b *backendState) record(err error, hc HealthCheck, log zerolog.Logger) {
	if err == nil {
		b.passed, b.failed = b.passed+1, 0
		if !b.up.Load() && b.passed >= hc.Rise {
			b.up.Store(true)
			log.Info().Int("passed_checks", b.passed).Msg("backend up: its health check passes again")
		}
		return
	}
	b.passed, b.failed = 0, b.failed+1
	if b.up.Load() && b.failed >= hc.Fall {
		b.up.Store(false)
		log.Warn().Err(err).Int("failed_checks", b.failed).Msg("backend down: its health check fails")
	}
}

// anyBackendUp says whether a check lets players go to at least one backend of r.
func (r *Route) anyBackendUp() bool {
	for _, b := range r.backends {
		if b.up.Load() {
			return true
		}
	}
	return false
}
