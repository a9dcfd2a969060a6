package routebook

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/routes"
)

// The origins of routes besides the discovery sources' ("docker", "kubernetes"), in the order the
// book merges them.
const (
	originFile = config.OriginFile
	originAPI  = config.OriginAPI
)

// Sink serves a discovery source's routes beside the file's, replacing its previous set.
type Sink interface {
	SetDiscovered(source string, found []config.Route)
}

// Setter swaps the running relay's routes, nothing else (relay.Server.SetRoutes).
type Setter interface {
	SetRoutes(routes []relay.Route) error
}

// Book holds the routes by origin: the config file's (replaced at each SIGHUP, ApplyFile),
// the routes API's (Add, Change, Remove; api.go) and each discovery source's
// (SetDiscovered), and serves their merge on the running relay. Every change, a SIGHUP's too,
// goes through mu, one at a time.
//
// The merge lists the file's routes, all of them; then the API's, in the order they were
// added; then each source's, sources by name. A route after the file's is served unless it
// fails the checks a file route gets (config.CheckRoute, its login's secret), or it clashes with
// a route served before it: the same label, or a host pattern both name on a path both take
// (the relay would send every such player to the first). Such a route is left out: one log
// line says why, moonbridge_routes{state="left_out"} counts it and the API lists it with the
// reason. It stays in the book and is served once the clash is gone. So for a host, the file
// wins over the API and the API over discovery; the API refuses a route that would be left out
// beside the file's and its own (checkAPI) rather than keep it unserved.
type Book struct {
	log   zerolog.Logger
	gauge *prometheus.GaugeVec // moonbridge_routes{origin,state}
	// persist writes the API's routes after each change (state.go); nil keeps them in
	// memory only.
	persist func([]config.Route) error

	mu         sync.Mutex
	srv        Setter // nil until the relay runs (attach)
	stale      bool   // a merge was made before attach: the relay does not serve it yet
	file       fileRoutes
	api        []config.Route
	discovered map[string][]config.Route
	current    bookMerge // what the relay serves
}

// fileRoutes is what the book keeps of the config file: its configuration (the login and
// access sections a route from elsewhere needs), its routes as the relay takes them, the
// transfer cookies (shutdown.transfer_secret_file) logins check, and the load's login key.
type fileRoutes struct {
	cfg     config.Config
	routes  []relay.Route
	cookies *relay.TransferCookies
	keys    onlineKeys
}

// fileRoutesOf keeps the key the file's online routes have, or makes one at the first online
// route from elsewhere: once per load, not at each merge.
func fileRoutesOf(cfg config.Config, relayCfg relay.Config, log zerolog.Logger) fileRoutes {
	keys := newOnlineKeys(cfg.Login, log)
	for _, r := range relayCfg.Routes {
		if r.Login != nil && r.Login.Keys != nil {
			fileKeys := r.Login.Keys
			keys = func() (*auth.Keys, error) { return fileKeys, nil }
			break
		}
	}
	return fileRoutes{cfg: cfg, routes: relayCfg.Routes, cookies: relayCfg.Transfer.Cookies, keys: keys}
}

// Entry is one route of the book: its origin, and why the merge leaves it out ("" when it
// is served).
type Entry struct {
	Origin  string
	Route   config.Route
	LeftOut string
}

// bookMerge is one merge of the book: every route in merge order, and the relay's routes of
// those served.
type bookMerge struct {
	entries []Entry
	routes  []relay.Route
}

func New(log zerolog.Logger, api []config.Route, persist func([]config.Route) error) *Book {
	return &Book{log: log, api: api, persist: persist, discovered: map[string][]config.Route{},
		gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "moonbridge_routes",
			Help: "Routes by origin (file, api, or a discovery source such as docker or kubernetes) and state: served, or left_out " +
				"(it fails a route's checks, or clashes with a route of the file, of the API or listed before it).",
		}, []string{"origin", "state"})}
}

// Gauge is moonbridge_routes{origin,state}, for the admin endpoint's registry.
func (b *Book) Gauge() prometheus.Collector { return b.gauge }

// Begin merges the file's routes (relayCfg's, from cfg) with the API's stored ones, before the
// relay is made: relayCfg's routes become the merge's.
func (b *Book) Begin(cfg config.Config, relayCfg *relay.Config) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	file := fileRoutesOf(cfg, *relayCfg, b.log)
	m, err := b.merge(file, b.api, b.discovered)
	if err != nil {
		return err
	}
	b.file = file
	relayCfg.Routes = m.routes
	b.commit(m)
	return nil
}

// Attach hands the book the running relay, and the routes found since Begin.
func (b *Book) Attach(srv Setter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.srv = srv
	if b.stale {
		if err := srv.SetRoutes(b.current.routes); err != nil {
			b.log.Error().Err(err).Msg("the routes found while the relay started are not served")
		}
		b.stale = false
	}
}

// ApplyFile is a SIGHUP's part: relayCfg (from cfg, the file read again) gets the merge of the
// file's new routes with those of the API and the sources, and reload applies it; the book
// takes the new file once reload has.
func (b *Book) ApplyFile(cfg config.Config, relayCfg relay.Config, reload func(relay.Config) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	file := fileRoutesOf(cfg, relayCfg, b.log)
	m, err := b.merge(file, b.api, b.discovered)
	if err != nil {
		return err
	}
	relayCfg.Routes = m.routes
	if err := reload(relayCfg); err != nil {
		return err
	}
	b.file = file
	b.commit(m)
	return nil
}

// SetDiscovered replaces the routes source ("docker", "kubernetes") found; each is validated as a
// file route is, and one that fails (bad host, a name or host clash with another route) is
// left out with a log line and a count, the others are served.
func (b *Book) SetDiscovered(source string, routes []config.Route) {
	b.mu.Lock()
	defer b.mu.Unlock()
	next := maps.Clone(b.discovered)
	next[source] = slices.Clone(routes)
	m, err := b.merge(b.file, b.api, next)
	if err == nil {
		err = b.serve(m)
	}
	if err != nil {
		b.log.Error().Err(err).Str("origin", source).Msg("discovered routes not applied; the running routes stay")
		return
	}
	b.discovered = next
	b.commit(m)
	served, leftOut := m.count(source)
	b.log.Info().Str("origin", source).Int("served", served).Int("left_out", leftOut).Msg("discovered routes applied")
}

// serve hands m's routes to the relay, or keeps them for attach.
func (b *Book) serve(m bookMerge) error {
	if b.srv == nil {
		b.stale = true
		return nil
	}
	return b.srv.SetRoutes(m.routes)
}

// merge is the book's merge (see Book) with these routes of each origin.
func (b *Book) merge(file fileRoutes, api []config.Route, discovered map[string][]config.Route) (bookMerge, error) {
	m := bookMerge{routes: slices.Clone(file.routes)}
	for _, r := range file.cfg.Routes {
		m.entries = append(m.entries, Entry{Origin: originFile, Route: r})
	}
	var extras []config.Route
	add := func(origin string, r config.Route) {
		e := Entry{Origin: origin, Route: r}
		if err := m.problem(file.cfg, origin, r); err != nil {
			e.LeftOut = err.Error()
		} else {
			extras = append(extras, r)
		}
		m.entries = append(m.entries, e)
	}
	for _, r := range api {
		add(originAPI, r)
	}
	for _, source := range slices.Sorted(maps.Keys(discovered)) {
		for _, r := range discovered[source] {
			add(source, r)
		}
	}
	routes, err := build(extras, file.cfg, file.keys, file.cookies)
	if err != nil {
		return bookMerge{}, err
	}
	m.routes = append(m.routes, routes...)
	return m, nil
}

// problem is why r, a route of origin, cannot be served after the routes m serves so far, or
// nil.
func (m *bookMerge) problem(file config.Config, origin string, r config.Route) error {
	if err := checkExtraRoute(file, origin, r); err != nil {
		return err
	}
	for _, e := range m.entries {
		if e.LeftOut == "" {
			if err := clash(e, origin, r, file); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkExtraRoute checks a route from origin, elsewhere than the file, as the file's are
// checked once what its source may not name is refused (config.CheckRouteFrom): its keys, and
// the secret its login reads.
func checkExtraRoute(file config.Config, origin string, r config.Route) error {
	if err := file.CheckRouteFrom(origin, routeKey(r), r); err != nil {
		return err
	}
	if r.Auth != routes.AuthPassthrough {
		if _, err := routeLogin(r, file.Login); err != nil {
			return fmt.Errorf("%s: %w", routeKey(r), err)
		}
	}
	return nil
}

// routeKey names a route in its errors: its label, or "route".
func routeKey(r config.Route) string {
	if label := r.Label(); label != "" {
		return label
	}
	return config.RouteKey
}

// count is how many routes of origin m serves and leaves out.
func (m bookMerge) count(origin string) (served, leftOut int) {
	for _, e := range m.entries {
		switch {
		case e.Origin != origin:
		case e.LeftOut == "":
			served++
		default:
			leftOut++
		}
	}
	return served, leftOut
}

// commit makes m the book's merge: the gauge counts it, and each route newly left out, or left
// out for a new reason, is logged.
func (b *Book) commit(m bookMerge) {
	type leftOut struct{ origin, label, reason string }
	was := map[leftOut]bool{}
	for _, e := range b.current.entries {
		was[leftOut{e.Origin, e.Route.Label(), e.LeftOut}] = true
	}
	for _, e := range m.entries {
		if e.LeftOut != "" && !was[leftOut{e.Origin, e.Route.Label(), e.LeftOut}] {
			b.log.Warn().Str("origin", e.Origin).Str("route", e.Route.Label()).Str("reason", e.LeftOut).Msg("route left out")
		}
	}
	b.current = m
	for _, origin := range append([]string{originFile, originAPI}, slices.Sorted(maps.Keys(b.discovered))...) {
		served, leftOut := m.count(origin)
		b.gauge.WithLabelValues(origin, "served").Set(float64(served))
		b.gauge.WithLabelValues(origin, "left_out").Set(float64(leftOut))
	}
}
