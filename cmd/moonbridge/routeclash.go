package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// routeClash is why a route cannot be served beside one already there: the same label, or a
// host pattern both name on a path both take, where the relay would send every player to the
// route listed first.
type routeClash struct {
	origin, label string // of the route already there
	host          string // the pattern both name; "" when the labels clash
}

func (c *routeClash) Error() string {
	if c.host == "" {
		return fmt.Sprintf("the name %q is taken by a route from %s", c.label, originName(c.origin))
	}
	return fmt.Sprintf("host %q is routed by %q from %s already, on the same paths", c.host, c.label, originName(c.origin))
}

// originName says where routes of origin come from, for a sentence.
func originName(origin string) string {
	switch origin {
	case originFile:
		return "the config file"
	case originAPI:
		return "the routes API"
	}
	return origin
}

// clash is the clash of r with e's route, or nil.
func clash(e bookEntry, r config.Route) error {
	if e.route.Label() == r.Label() {
		return &routeClash{origin: e.origin, label: r.Label()}
	}
	if host, ok := sharedHost(e.route, r); ok {
		return &routeClash{origin: e.origin, label: e.route.Label(), host: host}
	}
	return nil
}

// sharedHost is a host pattern of b that a names too, as the relay compares them (case and a
// trailing dot aside), when the two take a path in common.
func sharedHost(a, b config.Route) (string, bool) {
	if !pathsOverlap(a.Paths, b.Paths) {
		return "", false
	}
	for _, h := range b.Hosts {
		if slices.ContainsFunc(a.Hosts, func(g string) bool { return sameHost(g, h) }) {
			return h, true
		}
	}
	return "", false
}

func sameHost(a, b string) bool {
	return strings.EqualFold(strings.TrimSuffix(a, "."), strings.TrimSuffix(b, "."))
}

// pathsOverlap says whether two routes' paths have one in common; no paths is every path.
func pathsOverlap(a, b []string) bool {
	return len(a) == 0 || len(b) == 0 || slices.ContainsFunc(a, func(p string) bool { return slices.Contains(b, p) })
}
