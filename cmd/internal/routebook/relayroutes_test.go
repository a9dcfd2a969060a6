package routebook

import (
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover/docker"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/routes"
)

func TestRelayRoutesCarryNameAndHealthCheck(t *testing.T) {
	route := routes.Default("127.0.0.1:25565")
	route.Name = "lobby"
	route.HealthCheck = routes.HealthCheck{Mode: routes.HealthStatus, Interval: 3 * time.Second, Timeout: time.Second, Rise: 4, Fall: 5}
	built, err := relayRoutes([]config.Route{route}, nil, docker.Endpoint{})
	if err != nil {
		t.Fatal(err)
	}
	got := built[0]
	want := pool.HealthCheck{Mode: pool.HealthStatus, Interval: 3 * time.Second, Timeout: time.Second, Rise: 4, Fall: 5}
	if got.Name != "lobby" || got.HealthCheck != want {
		t.Errorf("relay route %+v, want name lobby and check %+v", got, want)
	}
	// The config's balance names are the relay's.
	for _, balance := range []string{routes.BalanceFailover, routes.BalanceRoundRobin, routes.BalanceRandom, routes.BalanceLeastConnections} {
		r := routes.Default("127.0.0.1:25565")
		r.Balance = balance
		if _, err := relay.NewRouter(mustRelayRoutes(t, r)); err != nil {
			t.Errorf("balance %s: %v", balance, err)
		}
	}
	// The config's mode names are the relay's.
	for _, mode := range []string{routes.HealthTCP, routes.HealthStatus, routes.HealthOff} {
		r := routes.Default("127.0.0.1:25565")
		r.HealthCheck.Mode = mode
		built, err := relayRoutes([]config.Route{r}, nil, docker.Endpoint{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := relay.NewRouter(built); err != nil {
			t.Errorf("mode %s: %v", mode, err)
		}
	}
}

func TestRelayRoutesCarryStatusCacheAndLastKnown(t *testing.T) {
	route := routes.Default("127.0.0.1:25565")
	route.StatusCache = 5 * time.Second
	if got := mustRelayRoutes(t, route)[0]; got.StatusCache != 5*time.Second || got.LastKnown != nil {
		t.Errorf("fallback fixed: relay route has cache %v, last known %+v; want 5s and none", got.StatusCache, got.LastKnown)
	}
	route.Fallback = routes.FallbackLastKnown
	route.LastKnown = routes.LastKnown{MOTDPrefix: "p", VersionName: "v"}
	got := mustRelayRoutes(t, route)[0]
	if got.LastKnown == nil || *got.LastKnown != (relay.LastKnown{MOTDPrefix: "p", VersionName: "v"}) {
		t.Errorf("fallback last_known: relay route's LastKnown %+v, want the configured marks", got.LastKnown)
	}
}

func TestRelayRoutesCarryWake(t *testing.T) {
	route := routes.Default("127.0.0.1:25565")
	if got := mustRelayRoutes(t, route)[0]; got.Wake != nil {
		t.Errorf("a route without wake got %+v", got.Wake)
	}
	route.Wake.Command, route.Wake.StopAfterIdle, route.Wake.StopCommand = []string{"start"}, time.Minute, []string{"stop"}
	got := mustRelayRoutes(t, route)[0].Wake
	if got == nil || got.Command[0] != "start" || got.StopCommand[0] != "stop" || got.StopAfterIdle != time.Minute ||
		!got.Hold || got.ReadyTimeout != route.Wake.ReadyTimeout || got.StartingMOTD != route.Wake.StartingMOTD || got.StartingMessage != route.Wake.StartingMessage {
		t.Errorf("relay wake %+v, want the config's %+v", got, route.Wake)
	}
}

// mustRelayRoutes is relayRoutes of routes, failing the test on an error.
func mustRelayRoutes(t *testing.T, routes ...config.Route) []relay.Route {
	t.Helper()
	got, err := relayRoutes(routes, nil, docker.Endpoint{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A wake.container, a discovered route's or a file route's, is started and stopped through the
// engine discovery.docker names.
func TestWakeContainerGoesThroughTheEngine(t *testing.T) {
	r := routes.Default("survival:25565")
	r.Wake.Container, r.Wake.StopAfterIdle = "c0ffee", 10*time.Minute
	cfg := config.Default()
	engine := cfg.Discovery.Docker.Endpoint
	w := mustBuild(t, cfg, r)[0].Wake
	if w == nil || w.Runtime != (docker.Container{Endpoint: engine, ID: "c0ffee"}) || w.StopAfterIdle != 10*time.Minute || !w.Hold || len(w.Command) != 0 {
		t.Errorf("the waking route's wake is %+v, want container c0ffee through %s", w, engine)
	}
}

// mustBuild is build of list with cfg's settings, failing the test on an error.
func mustBuild(t *testing.T, cfg config.Config, list ...config.Route) []relay.Route {
	t.Helper()
	got, err := build(list, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A route's countries reach the relay upper-cased, checked once here.
func TestRelayRoutesCarryCountries(t *testing.T) {
	route := routes.Default("127.0.0.1:25565")
	route.Countries = routes.Countries{Allow: []string{"de", "XX"}, Deny: []string{"t1"}}
	got := mustRelayRoutes(t, route)[0].Countries
	if strings.Join(got.Allow, ",") != "DE,XX" || strings.Join(got.Deny, ",") != "T1" {
		t.Errorf("relay route's countries %+v, want DE,XX and T1", got)
	}
}
