package relay

import (
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// SetRoutes sends new players to the new routes and touches nothing else: a running session
// goes on with its backend, the listener keeps its socket and the block list its addresses
// (a Reload would empty it).
func TestSetRoutesChangesOnlyTheRoutes(t *testing.T) {
	oldBackend, newBackend := startBackend(t, false), startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(oldBackend.addr())
		c.Limits.ConnectionBurst = 100
		c.Defence.Block = Block{After: 2, Window: 10 * time.Second, For: time.Hour}
	}, Minecraft)
	running := openSession(t, Minecraft, addr)
	sendGarbage(t, "127.0.0.26", addr, 2)
	waitForMetric(t, srv, "moonbridge_blocked_addresses", nil, 1)

	if err := srv.SetRoutes(routeTo(newBackend.addr())); err != nil {
		t.Fatal(err)
	}
	openSession(t, Minecraft, addr)
	exchange(t, running, "", 1<<20)
	if o, n := oldBackend.helloCount(), newBackend.helloCount(); o != 1 || n != 1 {
		t.Errorf("sessions at the old backend %d, at the new one %d; want 1 and 1", o, n)
	}
	if statusAnswered(t, "127.0.0.26", addr) {
		t.Error("SetRoutes emptied the block list")
	}
	if got := srv.Addrs()[0].String(); got != addr {
		t.Errorf("the listener moved from %s to %s", addr, got)
	}
}

// A route SetRoutes leaves as it was keeps its pool: a backend its checks took out stays out,
// with one checker, while a new route's backend starts up and gets a checker of its own; a
// route that goes takes its checker and its series along.
func TestSetRoutesKeepsTheHealthOfUnchangedRoutes(t *testing.T) {
	dead := testutil.ClosedPort(t)
	live := startBackend(t, false)
	checked := func(name, addr string) Route {
		return Route{Name: name, Hosts: []string{name + ".example.net"}, Backends: []pool.Backend{{Addr: addr}}, HealthCheck: fastCheck(pool.HealthTCP)}
	}
	srv, _ := startProxy(t, func(c *Config) { c.Routes = []Route{checked("kept", dead)} }, Minecraft)
	kept := map[string]string{"route": "kept", "backend": dead}
	waitForMetric(t, srv, "moonbridge_backend_up", kept, 0)

	if err := srv.SetRoutes([]Route{checked("kept", dead), checked("added", live.addr())}); err != nil {
		t.Fatal(err)
	}
	if v, _ := metricValue(t, srv, "moonbridge_backend_up", kept); v != 0 {
		t.Error("the unchanged route's dead backend counts as up again after SetRoutes")
	}
	waitForMetric(t, srv, "moonbridge_backend_up", map[string]string{"route": "added", "backend": live.addr()}, 1)
	testutil.WaitFor(t, "one checker per backend", func() bool { return goroutinesIn("pool.(*Pool).watch") == 2 })

	if err := srv.SetRoutes([]Route{checked("added", live.addr())}); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the removed route's checker to stop", func() bool { return goroutinesIn("pool.(*Pool).watch") == 1 })
	if _, ok := metricValue(t, srv, "moonbridge_backend_dial_seconds", kept); ok {
		t.Error("the removed route's backend still has a dial series")
	}
}

// Routes that do not check out change nothing: two with one label, a host that is no pattern,
// tokens without keys to check them; new players keep the old route.
func TestSetRoutesRefusesBadRoutes(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft)
	twice := append(routeTo(backend.addr()), routeTo(backend.addr())...)
	badHost := routeTo(backend.addr())
	badHost[0].Hosts = []string{"a*b.example.net"}
	tokens := routeTo(backend.addr())
	tokens[0].Access.Tokens = access.TokensRequired
	for name, routes := range map[string][]Route{"a label twice": twice, "a bad host": badHost, "tokens without keys": tokens} {
		if err := srv.SetRoutes(routes); err == nil {
			t.Errorf("%s: SetRoutes took it", name)
		}
	}
	openSession(t, Minecraft, addr)
	if n := backend.helloCount(); n != 1 {
		t.Errorf("the old route's backend saw %d sessions after refused changes, want 1", n)
	}
}

// Before Start and after Close there is nothing to change.
func TestSetRoutesNeedsARunningServer(t *testing.T) {
	srv, err := New(Config{Listeners: []Listener{{Addr: "127.0.0.1:0", Protocols: []Protocol{Minecraft}}},
		Routes: routeTo("127.0.0.1:1"), DataPathConfig: DataPathConfig{DataPath: testDataPath}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.SetRoutes(routeTo("127.0.0.1:2")); err == nil {
		t.Error("SetRoutes before Start was taken")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := srv.SetRoutes(routeTo("127.0.0.1:2")); err == nil {
		t.Error("SetRoutes after Close was taken")
	}
}
