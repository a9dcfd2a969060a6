// Package discover finds routes outside the config file: containers with labels in a Docker
// engine or podman's Docker-compatible service (discover/docker), and Kubernetes Services or
// EndpointSlices with annotations (discover/kube). A source writes each route as the config
// file would (routes.Route, every key it does not set at its default) and reports its whole set
// each time the set changes; cmd/internal/routebook checks them as it checks routes from
// elsewhere than the file and serves them beside the file's, so a route that vanishes drains as
// a reload does.
package discover

import (
	"reflect"

	"github.com/moonbridge/moonbridge/routes"
)

// Update receives a source's whole set of routes after each change; a source calls it from one
// goroutine at a time. A source names its routes with its own prefix ("docker/survival",
// "kube/games/survival"), unique among its routes, and lists them in the order it prefers them
// when two claim one host (the first is served).
type Update func(found []routes.Route)

// Same says whether two sets of routes are the same, route by route and key by key: a source
// reports a set only when it is not the same as the last one it reported.
func Same(a, b []routes.Route) bool {
	return len(a) == len(b) && reflect.DeepEqual(a, b)
}
