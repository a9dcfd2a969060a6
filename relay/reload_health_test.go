package relay

import (
	"net"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// A reload hands health checking to the new routes: the old routes' checkers stop, the new
// ones run, and the backend series follow (a backend that is gone leaves no series behind).
func TestReloadMovesHealthChecksAndSeries(t *testing.T) {
	checked := func(addr string) []Route {
		return []Route{{Name: "r", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: addr}}, HealthCheck: fastCheck(pool.HealthTCP)}}
	}
	probes := func() (string, chan struct{}) {
		seen := make(chan struct{}, 100)
		addr := testutil.Serve(t, func(conn net.Conn) {
			conn.Close()
			select {
			case seen <- struct{}{}:
			default:
			}
		}).Addr().String()
		return addr, seen
	}
	oldAddr, _ := probes()
	newAddr, newProbed := probes()
	srv, _ := startProxy(t, func(c *Config) { c.Routes = checked(oldAddr) }, Minecraft)
	if _, err := reload(srv, func(c *Config) { c.Routes = checked(newAddr) }); err != nil {
		t.Fatal(err)
	}
	<-newProbed // the new route's checker runs
	testutil.WaitFor(t, "one backend watcher", func() bool { return goroutinesIn("pool.(*Pool).watch") == 1 })
	if _, ok := metricValue(t, srv, "moonbridge_backend_up", map[string]string{"route": "r", "backend": newAddr}); !ok {
		t.Error("no backend_up series for the new route's backend")
	}
	for _, name := range []string{"moonbridge_backend_up", "moonbridge_backend_dial_seconds"} {
		if _, ok := metricValue(t, srv, name, map[string]string{"route": "r", "backend": oldAddr}); ok {
			t.Errorf("%s still reports the backend the reload removed", name)
		}
	}
}
