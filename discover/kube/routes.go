package kube

import (
	"maps"
	"net"
	"slices"
	"strconv"

	"github.com/moonbridge/moonbridge/discover"
)

// routes is the whole set the stores make, ordered by route name.
func routes(svcs *serviceStore, endpoints *sliceStore) []discover.Route {
	out := make([]discover.Route, 0, len(svcs.routes))
	for _, key := range slices.Sorted(maps.Keys(svcs.routes)) {
		a := svcs.routes[key]
		out = append(out, discover.Route{Name: "kube/" + key, Hosts: a.hosts, Backends: a.backends(endpoints)})
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
