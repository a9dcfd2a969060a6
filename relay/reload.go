package relay

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/ws"
)

// ListenerChanges says what a Reload did to the listeners, by configured address.
type ListenerChanges struct {
	Added, Removed, Restarted []string
}

// Reload makes cfg the settings of every new connection (routes, backends, limits, trusted
// proxies, client address headers, fallback, TLS) and brings the listeners in line with
// cfg.Listeners, matched by configured address: a listener whose address, protocols, PROXY
// policy and (for ws and wss) WebSocket settings are unchanged keeps its socket; a new address
// is bound, a missing one closed; a changed one is closed and bound again at once (connections
// arriving in between are refused). Running sessions keep the settings and backend they
// started with, also when their listener is closed. The block list is emptied (blocklist.go).
// When cfg is invalid or a new address cannot be bound, nothing changes and the error says
// why. cfg.Logger and cfg.Listen are ignored.
func (s *Server) Reload(cfg Config) (ListenerChanges, error) {
	cfg.Logger = s.log
	next, err := newSettings(cfg)
	if err != nil {
		return ListenerChanges{}, err
	}
	s.attachPools(next.router.pools())
	s.attachLogins(next)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.changeable(); err != nil {
		return ListenerChanges{}, err
	}
	prev := s.current.Swap(next)
	plan := s.planListeners(prev, next)
	added, err := s.bindAll(plan.add)
	if err != nil {
		s.current.Store(prev)
		return ListenerChanges{}, err
	}
	s.counter.resize(next.limits)
	if cleared := s.blocks.reset(next.Defence.Block); cleared > 0 {
		s.log.Info().Int("cleared", cleared).Msg("block list cleared by the reload")
	}
	s.meter.Configure(s.meterShare(next.LoginMeter))
	// A backend's health starts again from up under the new routes: the checks soon say
	// otherwise (docs/routes.md).
	s.followRoutes(prev.router, next.router)
	for _, ln := range append(plan.remove, plan.restart...) {
		ln.close()
	}
	restarted, err := s.bindAll(plan.restartCfg)
	for _, ln := range slices.Concat(added, restarted) {
		s.serveListener(ln)
	}
	s.listeners = inConfigOrder(next.Listeners, slices.Concat(plan.keep, added, restarted))
	return plan.changes(), err
}

// changeable says why the settings cannot change now (Reload, SetRoutes): the server is
// shutting down or has not started; nil when they can. Called under s.mu.
func (s *Server) changeable() error {
	switch {
	case s.draining.Load():
		return errors.New("the server is shutting down")
	case s.handedOver.Load():
		return errors.New("the server has handed its listeners to a new process")
	case !s.started:
		return errors.New("the server has not started")
	}
	return nil
}

// inConfigOrder puts the running listeners in the order of cfgs, for Addrs.
func inConfigOrder(cfgs []Listener, running []*listener) []*listener {
	byAddr := map[string]*listener{}
	for _, ln := range running {
		byAddr[ln.cfg.Addr] = ln
	}
	var out []*listener
	for _, l := range cfgs {
		if ln, ok := byAddr[l.Addr]; ok {
			out = append(out, ln)
		}
	}
	return out
}

// listenerPlan is the difference between the running listeners and the new configuration.
type listenerPlan struct {
	keep, remove, restart []*listener
	add, restartCfg       []Listener
}

func (s *Server) planListeners(prev, next *settings) listenerPlan {
	wsChanged := !sameWebSocket(prev.WebSocket, next.WebSocket)
	var plan listenerPlan
	wanted := map[string]Listener{}
	for _, l := range next.Listeners {
		wanted[l.Addr] = l
	}
	running := map[string]bool{}
	for _, ln := range s.listeners {
		running[ln.cfg.Addr] = true
		want, ok := wanted[ln.cfg.Addr]
		switch {
		case !ok:
			plan.remove = append(plan.remove, ln)
		case sameListener(ln.cfg, want) && !(wsChanged && (ln.ws != nil || ln.wss != nil)):
			plan.keep = append(plan.keep, ln)
		default:
			plan.restart = append(plan.restart, ln)
			plan.restartCfg = append(plan.restartCfg, want)
		}
	}
	for _, l := range next.Listeners {
		if !running[l.Addr] {
			plan.add = append(plan.add, l)
		}
	}
	return plan
}

func (p listenerPlan) changes() ListenerChanges {
	var c ListenerChanges
	for _, l := range p.add {
		c.Added = append(c.Added, l.Addr)
	}
	for _, ln := range p.remove {
		c.Removed = append(c.Removed, ln.cfg.Addr)
	}
	for _, l := range p.restartCfg {
		c.Restarted = append(c.Restarted, l.Addr)
	}
	return c
}

// bindAll binds every listener in cfgs, or none: on a failure it closes those it bound.
func (s *Server) bindAll(cfgs []Listener) ([]*listener, error) {
	var bound []*listener
	for _, cfg := range cfgs {
		ln, err := s.listen(cfg)
		if err != nil {
			for _, b := range bound {
				b.close()
			}
			return nil, fmt.Errorf("listener %s: %w", cfg.Addr, err)
		}
		bound = append(bound, ln)
	}
	return bound, nil
}

func sameListener(a, b Listener) bool {
	return a.Addr == b.Addr && a.Proxy == b.Proxy && slices.Equal(a.Protocols, b.Protocols) &&
		a.EarlyData == b.EarlyData && a.RawStream == b.RawStream
}

// sameWebSocket compares the upgrade settings, loggers and callbacks aside.
func sameWebSocket(a, b ws.ServerConfig) bool {
	a.Logger, b.Logger = zerolog.Logger{}, zerolog.Logger{}
	a.Conn.Logger, b.Conn.Logger = zerolog.Logger{}, zerolog.Logger{}
	a.Admit, b.Admit = nil, nil
	a.ServesPath, b.ServesPath = nil, nil
	a.OnEarlyData, b.OnEarlyData = nil, nil
	return reflect.DeepEqual(a, b)
}

// resize applies new connection limits; connections over a lowered limit stay open, and new
// ones wait until enough have ended. The rate buckets keep their tokens and take the new rate
// and burst (divided while strict) from their next refill.
func (c *counter) resize(l Limits) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limits = l
	c.applyRates()
}
