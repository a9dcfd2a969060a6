package main

import (
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

func TestRelayRoutesCarryNameAndHealthCheck(t *testing.T) {
	route := config.DefaultRoute("127.0.0.1:25565")
	route.Name = "lobby"
	route.HealthCheck = config.HealthCheck{Mode: config.HealthStatus, Interval: 3 * time.Second, Timeout: time.Second, Rise: 4, Fall: 5}
	routes, err := relayRoutes([]config.Route{route})
	if err != nil {
		t.Fatal(err)
	}
	got := routes[0]
	want := relay.HealthCheck{Mode: relay.HealthStatus, Interval: 3 * time.Second, Timeout: time.Second, Rise: 4, Fall: 5}
	if got.Name != "lobby" || got.HealthCheck != want {
		t.Errorf("relay route %+v, want name lobby and check %+v", got, want)
	}
	// The config's mode names are the relay's.
	for _, mode := range []string{config.HealthTCP, config.HealthStatus, config.HealthOff} {
		r := config.DefaultRoute("127.0.0.1:25565")
		r.HealthCheck.Mode = mode
		routes, err := relayRoutes([]config.Route{r})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := relay.NewRouter(routes); err != nil {
			t.Errorf("mode %s: %v", mode, err)
		}
	}
}
