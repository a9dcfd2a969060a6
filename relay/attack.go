package relay

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// AttackMode is the automatic attack mode (docs/defence.md, "Attack mode"). While new
// connections, status pings or logins over the whole proxy come faster than their thresholds,
// what new connections get tightens: status pings share one live answer per route a second
// (statusFromCache), new connections per address and per network get a quarter of their rate
// (counter.setStrict), online logins pass the login meter one at a time (Meter.SetStrict), a
// wss client over a per-address limit is refused before TLS (answerTLS).
// Established sessions are never touched. The mode ends once every rate has stayed under its
// threshold for Cooldown. A zero threshold or cooldown means its default; the zero value is off.
//
// Each client network counts for at most its own per-network rates (attackShares): new
// connections, refused ones included, up to connection_rate_per_network a second, pings up to
// status_rate_per_network, logins up to login_rate_per_network. One address or one network
// cannot start the mode or keep it on; it takes a flood from more networks than a threshold
// over a network's rate (50 /24s for connections at the defaults).
type AttackMode struct {
	Enabled              bool          `yaml:"enabled"`
	ConnectionsPerSecond int           `yaml:"connections_per_second"` // new connections, each network's capped
	PingsPerSecond       int           `yaml:"pings_per_second"`       // status pings, legacy ones included
	LoginsPerSecond      int           `yaml:"logins_per_second"`      // login (and transfer) handshakes
	Cooldown             time.Duration `yaml:"cooldown"`
	// Interval is how often the rates are measured; 0: every second.
	Interval time.Duration `yaml:"-"`
}

// DefaultAttackMode's thresholds sit above what the default limits let a full proxy's players
// do and below what a flood does (free tools reach 5,000-10,000 connections a second from one
// machine). 1,000 connections a second turns the default max_connections (10,000) over every 10
// s; 500 pings a second is every one of those players opening the server list within 20 s;
// 200 logins a second is all of them joining again within a minute of a restart.
func DefaultAttackMode() AttackMode {
	return AttackMode{
		Enabled:              true,
		ConnectionsPerSecond: 1000,
		PingsPerSecond:       500,
		LoginsPerSecond:      200,
		Cooldown:             time.Minute,
		Interval:             time.Second,
	}
}

func (a AttackMode) withDefaults() AttackMode {
	d := DefaultAttackMode()
	return AttackMode{
		Enabled:              a.Enabled,
		ConnectionsPerSecond: positiveOr(a.ConnectionsPerSecond, d.ConnectionsPerSecond),
		PingsPerSecond:       positiveOr(a.PingsPerSecond, d.PingsPerSecond),
		LoginsPerSecond:      positiveOr(a.LoginsPerSecond, d.LoginsPerSecond),
		Cooldown:             positiveOr(a.Cooldown, d.Cooldown),
		Interval:             positiveOr(a.Interval, d.Interval),
	}
}

// attackWatch holds the mode. What arrives is counted per network by the counter
// (attackShares) and measured by the one goroutine that measures (watchAttack), which alone
// changes the mode; others only read on.
type attackWatch struct {
	on          atomic.Bool
	activations atomic.Int64

	// the measuring goroutine's own
	since, lastOver time.Time // when the mode started, when a rate was last over its threshold
	refusedAtStart  float64
}

// gauge is the mode as moonbridge_attack_mode says it: 1 on, 0 off.
func (w *attackWatch) gauge() float64 {
	if w.on.Load() {
		return 1
	}
	return 0
}

// underAttack says whether the attack mode is on; one atomic load.
func (s *Server) underAttack() bool { return s.attack.on.Load() }

// startAttackWatch runs the measurements until the server closes.
func (s *Server) startAttackWatch() {
	s.wg.Add(1)
	go func() { defer s.wg.Done(); s.watchAttack() }()
}

// watchAttack measures the rates every interval (read again each time, so a reload applies at
// the next one) and starts or ends the mode.
func (s *Server) watchAttack() {
	last := time.Now()
	timer := time.NewTimer(s.settings().Defence.AttackMode.withDefaults().Interval)
	defer timer.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-timer.C:
			cfg := s.settings().Defence.AttackMode.withDefaults()
			s.measureAttack(cfg, readRates(cfg, s.withOtherReplicas(s.counter.takeShares(now.Sub(last)))), now)
			last = now
			timer.Reset(cfg.Interval)
		}
	}
}

// rateReading is one measured rate against its threshold.
type rateReading struct {
	name      string // the log's rate field: connections, pings, logins
	what      string // in words, for the log line
	perSecond float64
	threshold int
}

func (r rateReading) over() bool { return r.perSecond > float64(r.threshold) }

// readRates sets the measured rates against their thresholds.
func readRates(cfg AttackMode, perSecond [attackKinds]float64) []rateReading {
	return []rateReading{
		{"connections", "new connections", perSecond[kindConnection], cfg.ConnectionsPerSecond},
		{"pings", "status pings", perSecond[kindPing], cfg.PingsPerSecond},
		{"logins", "logins", perSecond[kindLogin], cfg.LoginsPerSecond},
	}
}

// measureAttack starts the mode on the first rate over its threshold, and ends it once the
// rates have stayed under theirs for the cooldown (or the mode was turned off).
func (s *Server) measureAttack(cfg AttackMode, rates []rateReading, now time.Time) {
	w := &s.attack
	var over *rateReading
	for i := range rates {
		if rates[i].over() {
			over = &rates[i]
			break
		}
	}
	switch {
	case !cfg.Enabled:
		if w.on.Load() {
			s.endAttack(now, "attack mode turned off")
		}
	case over != nil && !w.on.Load():
		s.startAttack(cfg, *over, now)
	case over != nil:
		w.lastOver = now
	case w.on.Load() && now.Sub(w.lastOver) >= cfg.Cooldown:
		s.endAttack(now, "rates under their thresholds for "+cfg.Cooldown.String())
	}
}

// startAttack tightens, logs and only then sets the mode on, so that whoever sees it on (the
// gauge, underAttack) also finds the tightening done and the line written; endAttack likewise.
func (s *Server) startAttack(cfg AttackMode, over rateReading, now time.Time) {
	w := &s.attack
	w.since, w.lastOver, w.refusedAtStart = now, now, s.refusedSoFar()
	s.tighten(true)
	s.log.Warn().Str("rate", over.name).Float64("per_second", math.Round(over.perSecond)).Int("threshold", over.threshold).
		Msg(fmt.Sprintf("attack mode on: %.0f %s a second, over the threshold of %d; status pings share "+
			"one answer per route a second, new connections per address and per network are held to a "+
			"quarter of their rate, online logins go through the login meter without its burst, "+
			"and wss clients over a per-address limit are refused before TLS until every rate "+
			"stays under its threshold for %s", over.perSecond, over.what, over.threshold, cfg.Cooldown))
	w.activations.Add(1)
	w.on.Store(true)
}

func (s *Server) endAttack(now time.Time, why string) {
	w := &s.attack
	s.tighten(false)
	lasted := now.Sub(w.since).Round(100 * time.Millisecond)
	refused := s.refusedSoFar() - w.refusedAtStart
	s.log.Info().Str("lasted", lasted.String()).Float64("refused", refused).Str("why", why).
		Msg(fmt.Sprintf("attack mode off after %s (%s); %.0f connections refused meanwhile", lasted, why, refused))
	w.on.Store(false)
}

// tighten turns on or off what the attack mode does beyond reading underAttack: the stricter
// new-connection rates (counter.setStrict) and online logins one at a time through the login
// meter's queue, without its burst (auth.Meter.SetStrict).
func (s *Server) tighten(on bool) {
	s.counter.setStrict(on)
	s.meter.SetStrict(on)
}

// refusedSoFar is how many connections were refused since the start, every reason together.
func (s *Server) refusedSoFar() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n float64
	for _, v := range s.tally.refused {
		n += v
	}
	return n
}
