package kube

import (
	"cmp"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/moonbridge/moonbridge/routes"
)

// routesOf is the whole set the stores make, each route to the Service's backends with every
// other key at its default, oldest Service first (creationTimestamp, then by name): of two
// Services that claim one host, the older one is served.
func routesOf(svcs *serviceStore, endpoints *sliceStore) []routes.Route {
	keys := slices.SortedFunc(maps.Keys(svcs.routes), func(a, b string) int {
		return cmp.Or(svcs.routes[a].created.Compare(svcs.routes[b].created), strings.Compare(a, b))
	})
	out := make([]routes.Route, 0, len(keys))
	for _, key := range keys {
		a := svcs.routes[key]
		r := routes.Default(a.backends(endpoints)...)
		r.Name, r.Hosts, r.Countries = "kube/"+key, a.hosts, a.countries
		out = append(out, r)
	}
	return out
}

// backends are the Service's name and port, or in endpoints mode its ready endpoints (the
// Service's name while it has none, so the route stays and answers with its fallback).
func (a annotated) backends(endpoints *sliceStore) []string {
	if a.endpoints {
		var ready []string
		for _, sl := range endpoints.byService[a.key()] {
			ready = append(ready, sl.backends(a.port)...)
		}
		if len(ready) > 0 {
			slices.Sort(ready)
			return slices.Compact(ready) // an endpoint moving between slices is in both for a moment
		}
	}
	return []string{net.JoinHostPort(a.name+"."+a.namespace+".svc", strconv.Itoa(int(a.port.Port)))}
}
