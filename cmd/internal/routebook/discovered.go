package routebook

import (
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover"
)

// Sink serves a discovery source's routes beside the file's, replacing its previous set.
type Sink interface {
	SetDiscovered(source string, routes []config.Route)
}

// FromDiscovered writes a source's routes as the file's: their name, hosts, backends and
// balance, a wake through the container's engine, every other key at its default.
func FromDiscovered(found []discover.Route) []config.Route {
	out := make([]config.Route, len(found))
	for i, r := range found {
		route := config.DefaultRoute(r.Backends...)
		route.Name, route.Hosts = r.Name, r.Hosts
		if r.Balance != "" {
			route.Balance = r.Balance
		}
		if r.Wake != nil {
			route.Wake.Container, route.Wake.StopAfterIdle = r.Wake.Container, r.Wake.StopAfterIdle
		}
		out[i] = route
	}
	return out
}
