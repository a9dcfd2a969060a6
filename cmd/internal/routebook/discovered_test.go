package routebook

import (
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover"
	"github.com/moonbridge/moonbridge/discover/docker"
	"github.com/moonbridge/moonbridge/relay"
)

// A source's routes, written as the file's, pass the file's checks; a waking one is woken
// through the engine discovery.docker names; a shared one keeps its balance.
func TestDiscoveredRoutesAreFileRoutes(t *testing.T) {
	found := []discover.Route{
		{Name: "docker/creative", Hosts: []string{"creative.example.net"}, Backends: []string{"192.0.2.5:25565"}},
		{Name: "docker/survival", Hosts: []string{"survival.example.net", "*.survival.example.net"}, Backends: []string{"survival:25565"},
			Wake: &discover.Wake{Container: "c0ffee", StopAfterIdle: 10 * time.Minute}},
		{Name: "docker/lobby", Hosts: []string{"lobby.example.net"}, Backends: []string{"192.0.2.21:25565", "192.0.2.22:25565"},
			Balance: config.BalanceRoundRobin},
	}
	cfg := config.Default()
	cfg.Routes = FromDiscovered(found)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the discovered routes do not validate: %v", err)
	}
	if r := cfg.Routes[0]; r.Wake.On() || r.Balance != config.BalanceFailover || r.HealthCheck.Mode != config.HealthTCP {
		t.Errorf("a plain route is not at the defaults: %+v", r)
	}
	if r := cfg.Routes[2]; r.Balance != config.BalanceRoundRobin || len(r.Backends) != 2 {
		t.Errorf("a shared route's balance or backends are lost: %+v", r)
	}
	engine := cfg.Discovery.Docker.Endpoint
	routes, err := relayRoutes(cfg.Routes, nil, engine)
	if err != nil {
		t.Fatal(err)
	}
	w := routes[1].Wake
	if w == nil || w.Runtime != (docker.Container{Endpoint: engine, ID: "c0ffee"}) || w.StopAfterIdle != 10*time.Minute || !w.Hold || len(w.Command) != 0 {
		t.Errorf("the waking route's wake is %+v, want container c0ffee through %s", w, engine)
	}
	if _, err := relay.NewRouter(routes); err != nil {
		t.Errorf("the relay refuses the routes: %v", err)
	}
}
