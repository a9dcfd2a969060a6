package pool

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Config is one route's backends and how a session picks, checks and wakes them.
type Config struct {
	Route string // the route's label, for metrics and logs
	// Hosts are the route's host patterns: a wildcard's match can name the backend (wildcard.go).
	Hosts []string
	// RewriteHost is the host the route's backends get in the handshake ("": the player's); the
	// status check names it too.
	RewriteHost string
	Backends    []Backend   // tried in the order Balance says
	Balance     Balance     // "" is failover
	HealthCheck HealthCheck // zero fields take DefaultHealthCheck's, a zero Mode is off
	Wake        *Wake       // nil: the route's server is never woken
}

// Pool is one route's backends as the relay sees them: which are up, how many sessions each
// runs, where the next session starts, and the wake of a sleeping server. A Server attaches it
// (Attach) before it serves a session and runs its checks (Start) while its settings are current.
type Pool struct {
	cfg     Config // checked, the health check's defaults filled in
	members []*member
	next    atomic.Uint64 // the round-robin position
	waker   *waker        // nil without Wake
	env     Env
}

// Env is what a pool takes from the server that runs it.
type Env struct {
	Log     zerolog.Logger
	Metrics *Metrics
	// Go runs f on a goroutine the server waits for when it closes: health checks, idle stops.
	Go func(f func())
	// Spawn runs f as Go does, unless the server is closing; it says whether f runs. A wake's
	// start runs on it.
	Spawn func(f func()) bool
}

// member is one backend of a pool: whether its health check lets players be sent to it, how
// many sessions it runs, and how often its dial failures are logged.
type member struct {
	Backend
	up atomic.Bool
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

// New checks cfg and makes its pool, every backend up until its checks say otherwise (a fresh
// start must not refuse players).
func New(cfg Config) (*Pool, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	var err error
	if cfg.HealthCheck, err = cfg.HealthCheck.withDefaults(); err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, members: make([]*member, len(cfg.Backends))}
	seen := map[string]bool{}
	for i, b := range cfg.Backends {
		if seen[b.Addr] {
			return nil, fmt.Errorf("backend %s is listed twice", b.Addr)
		}
		seen[b.Addr] = true
		p.members[i] = &member{Backend: b, logSampler: &zerolog.BurstSampler{Burst: dialLogBurst, Period: dialLogPeriod}}
		p.members[i].up.Store(true)
	}
	if cfg.Wake != nil {
		p.waker = &waker{cfg: *cfg.Wake, pool: p}
	}
	return p, nil
}

func (c Config) check() error {
	if err := c.Balance.check(); err != nil {
		return err
	}
	if err := c.checkCaptures(); err != nil {
		return err
	}
	if c.Wake != nil && c.Wake.ways() > 1 {
		return errors.New("wake: set one of a command, a webhook and a runtime")
	}
	if c.Wake != nil && c.captures() {
		return fmt.Errorf("wake: a route whose backends use %s cannot wake them (which one?)", captureVar)
	}
	return nil
}

// Attach gives p the server's log, metrics and goroutines, and makes its wake series exist;
// the server calls it before p serves a session.
func (p *Pool) Attach(env Env) {
	p.env = env
	if p.waker != nil {
		p.waker.log = env.Log.With().Str("route", p.cfg.Route).Logger()
		env.Metrics.followWakes(p.cfg.Route)
	}
}

// Active counts the sessions relayed to p's i-th backend now.
func (p *Pool) Active(i int) int64 { return p.members[i].active.Load() }

// activeSessions counts the sessions relayed to p's backends now.
func (p *Pool) activeSessions() int64 {
	var n int64
	for _, m := range p.members {
		n += m.active.Load()
	}
	return n
}

// anyUp says whether a check lets players go to at least one backend of p.
func (p *Pool) anyUp() bool {
	for _, m := range p.members {
		if m.up.Load() {
			return true
		}
	}
	return false
}
