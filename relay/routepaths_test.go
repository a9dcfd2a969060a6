package relay

import (
	"net/http"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/relay/pool"
)

// TestRoutePathsAreServed: a path a route names is upgraded on the listener beside the
// listener's own path, and reaches that route's backend; a path no route names gets 404. The
// served paths follow SetRoutes.
func TestRoutePathsAreServed(t *testing.T) {
	creative, survival, other := startBackend(t, false), startBackend(t, false), startBackend(t, false)
	routes := func(onPath Route) []Route { // the first listed wins among equal hosts
		return []Route{onPath, {Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: other.addr()}}}}
	}
	onPath := func(path string, b *testBackend) Route {
		return Route{Hosts: []string{"*"}, Paths: []string{path}, Backends: []pool.Backend{{Addr: b.addr()}}}
	}
	for _, protocol := range []Protocol{WS, WSS} {
		t.Run(string(protocol), func(t *testing.T) {
			srv, addr := startProxy(t, func(c *Config) { c.Routes = routes(onPath("/creative", creative)) }, protocol)
			reaches(t, protocol, addr, "/creative", creative)
			reaches(t, protocol, addr, "/mc", other)
			notFound(t, protocol, addr, "/survival")
			if err := srv.SetRoutes(routes(onPath("/survival", survival))); err != nil {
				t.Fatal(err)
			}
			reaches(t, protocol, addr, "/survival", survival)
			notFound(t, protocol, addr, "/creative")
		})
	}
}

// reaches opens a WebSocket on path and wants its bytes echoed by backend.
func reaches(t *testing.T, protocol Protocol, addr, path string, backend *testBackend) {
	t.Helper()
	c, _, err := dialAccess(t, protocol, addr, wsDial{path: path})
	if err != nil {
		t.Fatalf("upgrade on %s: %v", path, err)
	}
	defer c.Close()
	host := strings.Trim(path, "/") + "." + string(protocol) + ".test" // one a backend has not seen
	wsExchange(t, c, host)
	if !backend.sawHost(host) {
		t.Errorf("%s did not reach its route's backend", path)
	}
}

func notFound(t *testing.T, protocol Protocol, addr, path string) {
	t.Helper()
	c, resp, err := dialAccess(t, protocol, addr, wsDial{path: path})
	if err == nil {
		c.Close()
		t.Fatalf("upgrade on %s, which no route names, succeeded", path)
	}
	if resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("upgrade on %s: %v (response %v), want 404", path, err, resp)
	}
}

// TestUnservablePathsAreRefused: a path no request can have, or paths where no listener serves
// WebSocket, are refused with a reason when the routes are set, from the file or SetRoutes.
func TestUnservablePathsAreRefused(t *testing.T) {
	backend := []pool.Backend{{Addr: "127.0.0.1:1"}}
	for _, p := range []string{"creative", "", "/a b", "/a?b=1", "/a#b", "/a%20b", "/a\tb"} {
		_, err := NewRouter([]Route{{Hosts: []string{"*"}, Paths: []string{p}, Backends: backend}})
		if err == nil || !strings.Contains(err.Error(), "want a request path") {
			t.Errorf("path %q: %v, want a refusal that says what a path is", p, err)
		}
	}
	if _, err := NewRouter([]Route{{Hosts: []string{"*"}, Paths: []string{"/creative", "/a/b-c_d.e~f"}, Backends: backend}}); err != nil {
		t.Errorf("good paths refused: %v", err)
	}
	withPath := []Route{{Hosts: []string{"*"}, Paths: []string{"/creative"}, Backends: backend}}
	const why = "no listener serves ws or wss"
	_, err := New(Config{Listeners: []Listener{{Addr: "127.0.0.1:0", Protocols: []Protocol{Minecraft}}}, Routes: withPath, Fallback: DefaultFallback()})
	if err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("a route with paths on a Minecraft-only server: %v, want %q", err, why)
	}
	srv, _ := startProxy(t, func(c *Config) { c.Routes = routeTo("127.0.0.1:1") }, Minecraft)
	if err := srv.SetRoutes(withPath); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("SetRoutes with paths on a Minecraft-only server: %v, want %q", err, why)
	}
}
