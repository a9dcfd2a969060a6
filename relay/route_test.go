package relay

import (
	"testing"

	"github.com/moonbridge/moonbridge/relay/pool"
)

func TestRouterPicksMostSpecificRoute(t *testing.T) {
	backend := func(addr string) []pool.Backend { return []pool.Backend{{Addr: addr}} }
	router, err := NewRouter([]Route{
		{Hosts: []string{"*"}, Backends: backend("default")},
		{Hosts: []string{"*.example.net"}, Backends: backend("wild")},
		{Hosts: []string{"*.eu.example.net"}, Backends: backend("wild-eu")},
		{Hosts: []string{"play.example.net"}, Backends: backend("exact")},
		{Hosts: []string{"*"}, Paths: []string{"/creative"}, Backends: backend("path")},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ host, path, want string }{
		{"play.example.net", "", "exact"},
		{"PLAY.Example.NET.", "/mc", "exact"},
		{"lobby.example.net", "", "wild"},
		{"a.eu.example.net", "", "wild-eu"},
		{"example.net", "", "default"},
		{"other.org", "/mc", "default"},
		{"other.org", "/creative", "default"}, // "*" on /creative ties with "*"; the first wins
	}
	for _, tc := range cases {
		route, ok := router.Match(tc.host, tc.path)
		if !ok || route.Backends[0].Addr != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %s", tc.host, tc.path, route, tc.want)
		}
	}
}

func TestRouterPathOnlyRouteAndNoMatch(t *testing.T) {
	router, err := NewRouter([]Route{
		{Hosts: []string{"*"}, Paths: []string{"/creative"}, Backends: []pool.Backend{{Addr: "creative"}}},
		{Hosts: []string{"play.example.net"}, Backends: []pool.Backend{{Addr: "exact"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if route, ok := router.Match("x.org", "/creative"); !ok || route.Backends[0].Addr != "creative" {
		t.Errorf("path route: %v %v", route, ok)
	}
	if route, ok := router.Match("x.org", "/mc"); ok {
		t.Errorf("want no route for x.org /mc, got %v", route)
	}
}

func TestNewRouterRejectsBadRoutes(t *testing.T) {
	for _, routes := range [][]Route{
		{{Hosts: []string{"*"}}},
		{{Backends: []pool.Backend{{Addr: "a:1"}}}},
		{{Hosts: []string{"a.*.net"}, Backends: []pool.Backend{{Addr: "a:1"}}}},
		{{Hosts: []string{""}, Backends: []pool.Backend{{Addr: "a:1"}}}},
	} {
		if _, err := NewRouter(routes); err == nil {
			t.Errorf("NewRouter(%+v) accepted", routes)
		}
	}
}
