package routebook

import (
	"fmt"
	"slices"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// routeClash is why a route cannot be served beside one already there: the same label, or a
// host pattern both name on a path both take, where the relay would send every player to the
// route listed first; or a host pattern of a route from a less trusted origin that would take
// players of a route from a more trusted one (takes).
type routeClash struct {
	origin, label string // of the route already there
	host          string // the pattern of the new route; "" when the labels clash
	takes         bool   // the host is not the same, but the relay would send the new route players of the other
	claimKey      string // the key that lets the new route's origin claim hosts, for takes
}

func (c *routeClash) Error() string {
	switch {
	case c.host == "":
		return fmt.Sprintf("the name %q is taken by a route from %s", c.label, originName(c.origin))
	case c.takes:
		return fmt.Sprintf("host %q would take players that %q from %s serves, on the same paths (the relay prefers an exact name to a wildcard "+
			"and a longer wildcard to a shorter one); %s.hosts lets the owner give such hosts to this source", c.host, c.label, originName(c.origin), c.claimKey)
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

// rank orders origins by trust: the file, then the API, then the discovery sources alike.
func rank(origin string) int {
	switch origin {
	case originFile:
		return 0
	case originAPI:
		return 1
	}
	return 2
}

// clash is the clash of r, a route from origin, with e's route, or nil. A host of r that the
// owner lets origin claim (trust.Hosts) clashes only when e names it too.
func clash(e Entry, origin string, r config.Route, file config.Config) error {
	if e.Route.Label() == r.Label() {
		return &routeClash{origin: e.Origin, label: r.Label()}
	}
	if !pathsOverlap(e.Route.Paths, r.Paths) {
		return nil
	}
	trust, section := file.Trust(origin)
	for _, h := range r.Hosts {
		if slices.ContainsFunc(e.Route.Hosts, func(g string) bool { return relay.SameHost(g, h) }) {
			return &routeClash{origin: e.Origin, label: e.Route.Label(), host: h}
		}
		if rank(e.Origin) < rank(origin) && !trust.MayClaim(h) && relay.Takes(h, e.Route.Hosts) {
			return &routeClash{origin: e.Origin, label: e.Route.Label(), host: h, takes: true, claimKey: section}
		}
	}
	return nil
}

// pathsOverlap says whether two routes' paths have one in common; no paths is every path.
func pathsOverlap(a, b []string) bool {
	return len(a) == 0 || len(b) == 0 || slices.ContainsFunc(a, func(p string) bool { return slices.Contains(b, p) })
}
