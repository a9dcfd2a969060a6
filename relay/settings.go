package relay

import "fmt"

// settings is one immutable snapshot of what new connections use: routes, limits, trusted
// proxies, client address headers, token keys, fallback, TLS and WebSocket settings. Reload swaps it whole;
// a connection reads it once when it starts and keeps it, so a running session keeps its route
// and backend.
type settings struct {
	Config
	router *Router
	limits Limits // Config.Limits with defaults filled in
}

// newSettings checks cfg and builds its snapshot.
func newSettings(cfg Config) (*settings, error) {
	router, err := NewRouter(cfg.Routes)
	if err != nil {
		return nil, err
	}
	if err := router.needsVerifier(cfg.Tokens); err != nil {
		return nil, err
	}
	if err := router.needsWebSocket(cfg.Listeners); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, l := range cfg.Listeners {
		if err := checkProtocols(l, cfg.TLS != nil); err != nil {
			return nil, err
		}
		if seen[l.Addr] {
			// Reload matches listeners by address; one socket cannot serve two entries.
			return nil, fmt.Errorf("listener %s: listed twice", l.Addr)
		}
		seen[l.Addr] = true
	}
	if err := checkDataPath(cfg); err != nil {
		return nil, err
	}
	if err := cfg.LandingPage.check(); err != nil {
		return nil, err
	}
	return &settings{Config: cfg, router: router, limits: cfg.Limits.withDefaults()}, nil
}

// settings is the current snapshot: what a connection that starts now uses.
func (s *Server) settings() *settings { return s.current.Load() }
