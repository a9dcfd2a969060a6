package relay

import (
	"fmt"
	"strings"
)

// Route sends the clients whose handshake host (and, over ws/wss, request path) match it to the
// first of its backends that accepts the connection.
type Route struct {
	// Hosts are exact names ("play.example.net"), wildcards ("*.example.net", which matches
	// any name below example.net but not example.net itself) or "*" for any host.
	Hosts []string
	// Paths limits the route to these WebSocket request paths; empty matches every path and
	// raw TCP connections.
	Paths []string
	// Backends are tried in order; the next one only while no byte reached the previous one.
	Backends []Backend
	// RewriteHost, when set, replaces the host in the handshake sent to the backend; a modded
	// client's suffix after the NUL is kept.
	RewriteHost string
	// MaxConnections bounds this route's sessions (0: only the global limits apply).
	MaxConnections int
}

// Router picks the route for a connection. Exact hosts win over wildcards, longer wildcards over
// shorter ones, and "*" comes last; among equals, the first route listed wins.
type Router struct {
	routes []Route
}

// NewRouter checks the routes and returns a Router over them.
func NewRouter(routes []Route) (*Router, error) {
	for i, r := range routes {
		if len(r.Hosts) == 0 || len(r.Backends) == 0 {
			return nil, fmt.Errorf("route %d: needs at least one host and one backend", i)
		}
		for _, h := range r.Hosts {
			if h != "*" && (h == "" || strings.Contains(strings.TrimPrefix(h, "*."), "*")) {
				return nil, fmt.Errorf("route %d: host %q: want a name, *.domain or *", i, h)
			}
		}
	}
	return &Router{routes: routes}, nil
}

// Match returns the best route for host and path ("" for raw TCP), or false when none matches.
// Host comparison ignores case and a trailing dot, as DNS does.
func (r *Router) Match(host, path string) (*Route, bool) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
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

// hostScore ranks how specifically the route names host: -1 no match, 0 for "*", 1+len for a
// wildcard (longer suffix, more specific), and above every wildcard for an exact name.
func (r *Route) hostScore(host string) int {
	score := -1
	for _, pattern := range r.Hosts {
		pattern = strings.TrimSuffix(strings.ToLower(pattern), ".")
		switch {
		case pattern == host:
			return 1 << 20
		case pattern == "*":
			score = max(score, 0)
		case strings.HasPrefix(pattern, "*.") && strings.HasSuffix(host, pattern[1:]):
			score = max(score, 1+len(pattern))
		}
	}
	return score
}
