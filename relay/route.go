package relay

import (
	"fmt"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// Route sends the clients whose handshake host (and, over ws/wss, request path) match it to the
// first of its backends that accepts the connection.
type Route struct {
	// Name labels the route in metrics and logs; "" means its first host pattern followed by its
	// first path, if any ("*", "play.example.net", "*/creative"). Labels must differ.
	Name string
	// Hosts are exact names ("play.example.net"), wildcards ("*.example.net", which matches
	// any name below example.net but not example.net itself) or "*" for any host.
	Hosts []string
	// Paths limits the route to these WebSocket request paths; empty matches every path and
	// raw TCP connections.
	Paths []string
	// Backends are tried in the order Balance says; the next one only while no byte reached
	// the previous one.
	Backends []pool.Backend
	// RewriteHost, when set, replaces the host in the handshake sent to the backend; a modded
	// client's suffix after the NUL is kept.
	RewriteHost string
	// MaxConnections bounds this route's sessions (0: only the global limits apply).
	MaxConnections int
	// MaxPlayers bounds this route's players (0: none): a login past it is told the server is
	// full, and the route answers server-list pings itself, with MaxPlayers and its players in
	// the player line (withPlayers).
	MaxPlayers int
	// HealthCheck says how the backends are checked; backends that fail are skipped.
	HealthCheck pool.HealthCheck
	// Login, when set, makes the proxy run the players' logins itself (auth online or offline)
	// and forward the verified player to the backend; nil passes the login through.
	Login *auth.Config
	// Access says who may use the route: a token, the client's address (access.go).
	Access Access
	// Countries says which countries may use the route, by a trusted proxy's header (countries.go).
	Countries Countries
	// StatusCache, when set, answers server-list pings from a live answer at most this old
	// instead of passing each ping to a backend (statuscache.go).
	StatusCache time.Duration
	// LastKnown, when set, answers pings while no backend answers with the last live answer,
	// marked offline as it says, before the fixed fallback; the relay then answers every ping
	// itself, from live answers it keeps.
	LastKnown *LastKnown
	// Status, when set, replaces parts of the backends' status answers (routestatus.go); the
	// relay then answers every ping itself, from answers it asks the backends for.
	Status RouteStatus
	// Balance orders the backends for each session; "" is failover.
	Balance pool.Balance
	// Wake, when set, starts the route's sleeping server for a login no backend took.
	Wake *pool.Wake

	pool   *pool.Pool   // the backends' state, made by NewRouter, attached by the Server
	status *statusCache // live status answers, made by NewRouter
}

// Label is how metrics and logs name the route (see Name).
func (r *Route) Label() string { return Label(r.Name, r.Hosts, r.Paths) }

// Label is how metrics and logs name a route of this name, host patterns and paths: the name,
// or else its first host pattern followed by its first path, if any; "" for no name and no
// host.
func Label(name string, hosts, paths []string) string {
	switch {
	case name != "":
		return name
	case len(hosts) == 0:
		return ""
	case len(paths) > 0:
		return hosts[0] + paths[0]
	}
	return hosts[0]
}

// Router picks the route for a connection. Exact hosts win over wildcards, longer wildcards over
// shorter ones, and "*" comes last; among equals, the first route listed wins.
type Router struct {
	routes []Route
	paths  map[string]bool // every path a route names: the upgrade serves them (routepaths.go)
}

// NewRouter checks the routes and returns a Router over a copy of them.
func NewRouter(routes []Route) (*Router, error) {
	routes = append([]Route(nil), routes...)
	labels := map[string]int{}
	for i := range routes {
		if err := routes[i].prepare(); err != nil {
			return nil, fmt.Errorf("route %d: %w", i, err)
		}
		label := routes[i].Label()
		if j, taken := labels[label]; taken {
			return nil, fmt.Errorf("route %d: label %q is route %d's too; give one of them a name", i, label, j)
		}
		labels[label] = i
	}
	return &Router{routes: routes, paths: namedPaths(routes)}, nil
}

// prepare checks one route and makes its pool and status cache.
func (r *Route) prepare() error {
	if len(r.Hosts) == 0 || len(r.Backends) == 0 {
		return fmt.Errorf("needs at least one host and one backend")
	}
	for _, h := range r.Hosts {
		if err := CheckHostPattern(h); err != nil {
			return fmt.Errorf("host %q: %w", h, err)
		}
	}
	for _, p := range r.Paths {
		if err := CheckPath(p); err != nil {
			return err
		}
	}
	var err error
	if r.Access.Tokens, err = access.ParseMode(string(r.Access.Tokens)); err != nil {
		return err
	}
	r.pool, err = pool.New(r.poolConfig())
	r.status = newStatusCache()
	return err
}

// poolConfig is what the route's pool is made of.
func (r *Route) poolConfig() pool.Config {
	return pool.Config{Route: r.Label(), Hosts: r.Hosts, RewriteHost: r.RewriteHost,
		Backends: r.Backends, Balance: r.Balance, HealthCheck: r.HealthCheck, Wake: r.Wake}
}

// Match returns the best route for host and path ("" for raw TCP), or false when none matches.
// Host comparison ignores case and a trailing dot, as DNS does.
func (r *Router) Match(host, path string) (*Route, bool) {
	host = normalHost(host)
	best, bestScore := -1, -1
	for i := range r.routes {
		route := &r.routes[i]
		if !route.matchesPath(path) {
			continue
		}
		if score := route.hostScore(host); score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return nil, false
	}
	return &r.routes[best], true
}

func (r *Route) matchesPath(path string) bool {
	if len(r.Paths) == 0 {
		return true
	}
	for _, p := range r.Paths {
		if p == path {
			return true
		}
	}
	return false
}

// hostScore ranks how specifically the route names host (hostScore of its patterns).
func (r *Route) hostScore(host string) int { return hostScore(r.Hosts, host) }

// hostScore ranks how specifically patterns name host, a lower-case name without a trailing
// dot: -1 no match, 0 for "*", 1+len for a wildcard (longer suffix, more specific), and above
// every wildcard for an exact name.
func hostScore(patterns []string, host string) int {
	score := -1
	for _, pattern := range patterns {
		pattern = normalHost(pattern)
		switch {
		case pattern == host:
			return exactScore
		case pattern == "*":
			score = max(score, 0)
		case strings.HasPrefix(pattern, "*.") && strings.HasSuffix(host, pattern[1:]):
			score = max(score, 1+len(pattern))
		}
	}
	return score
}

// exactScore is an exact name's score, above every wildcard's.
const exactScore = 1 << 20

// normalHost is a host or pattern as Match compares it: lower case, no trailing dot.
func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// forPath is every route a WebSocket request for path may reach, whatever host its hello names.
func (r *Router) forPath(path string) []*Route {
	var out []*Route
	for i := range r.routes {
		if r.routes[i].matchesPath(path) {
			out = append(out, &r.routes[i])
		}
	}
	return out
}

// pools lists the pool of every route, in route order.
func (r *Router) pools() []*pool.Pool {
	all := make([]*pool.Pool, len(r.routes))
	for i := range r.routes {
		all[i] = r.routes[i].pool
	}
	return all
}
