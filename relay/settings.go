package relay

// settings is one immutable snapshot of what new connections use: routes, limits, trusted
// proxies, client address headers, fallback, TLS and WebSocket settings. Reload swaps it whole;
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
	for _, l := range cfg.Listeners {
		if err := checkProtocols(l, cfg.TLS != nil); err != nil {
			return nil, err
		}
	}
	return &settings{Config: cfg, router: router, limits: cfg.Limits.withDefaults()}, nil
}

// now is the current snapshot.
func (s *Server) now() *settings { return s.settings.Load() }
