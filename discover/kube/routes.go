package kube

import (
	"cmp"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/moonbridge/moonbridge/discover"
)

// routes is the whole set the stores make, oldest Service first (then by name), so that of two
// Services that claim one host the older one is served (discover.Route.Created).
func routes(svcs *serviceStore, endpoints *sliceStore) []discover.Route {
	keys := slices.SortedFunc(maps.Keys(svcs.routes), func(a, b string) int {
		return cmp.Or(svcs.routes[a].created.Compare(svcs.routes[b].created), strings.Compare(a, b))
	})
	out := make([]discover.Route, 0, len(keys))
	for _, key := range keys {
		a := svcs.routes[key]
		out = append(out, discover.Route{Name: "kube/" + key, Hosts: a.hosts, Backends: a.backends(endpoints), Created: a.created})
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
