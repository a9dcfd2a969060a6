// Package discover finds routes outside the config file: containers with labels in a Docker
// engine or podman's Docker-compatible service (discover/docker), and Kubernetes Services or
// EndpointSlices with annotations (discover/kube). A source reports its whole set of routes
// each time the set changes; cmd/moonbridge validates them as it does the file's routes and
// serves them beside the file's, so a route that vanishes drains as a reload does.
package discover

import (
	"slices"
	"time"
)

// Route is one route a source found.
type Route struct {
	// Name labels the route in metrics and logs; unique among the source's routes, and
	// prefixed with the source ("docker/survival", "kube/games/survival").
	Name string
	// Hosts are handshake hosts, as a file route's hosts: exact names or *.example.net.
	Hosts []string
	// Backends are host:port addresses, tried in the order Balance says.
	Backends []string
	// Balance is the route's balance (failover, round-robin, random, least-connections);
	// "": the file's default, failover.
	Balance string
	// Wake, when set, starts the route's stopped backend through its runtime for a login, and
	// stops it after idle.
	Wake *Wake
	// Created is when the object the route was found on was made (a Service's
	// creationTimestamp); zero when the source does not say. A source lists its routes oldest
	// first, so that of two that claim one host the older is served.
	Created time.Time
}

// Wake is how a source's runtime wakes a route's backend.
type Wake struct {
	// Container names the container to start and stop.
	Container string
	// StopAfterIdle stops the container once the route has had no player this long; 0 never.
	StopAfterIdle time.Duration
}

// Update receives a source's whole set of routes after each change; a source calls it from one
// goroutine at a time.
type Update func(routes []Route)

// Same says whether two sets of routes are the same, route by route: a source reports a set
// only when it is not the same as the last one it reported.
func Same(a, b []Route) bool {
	return slices.EqualFunc(a, b, func(a, b Route) bool {
		return a.Name == b.Name && slices.Equal(a.Hosts, b.Hosts) && slices.Equal(a.Backends, b.Backends) && a.Balance == b.Balance &&
			(a.Wake == nil) == (b.Wake == nil) && (a.Wake == nil || *a.Wake == *b.Wake) && a.Created.Equal(b.Created)
	})
}
