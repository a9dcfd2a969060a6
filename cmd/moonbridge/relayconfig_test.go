package main

import (
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// The limits, the attack mode and the data path the file sets reach the relay.
func TestRelayConfigCarriesLimits(t *testing.T) {
	cfg := config.Default()
	cfg.Listeners[0].Protocols = []relay.Protocol{relay.Minecraft}
	cfg.Limits.ConnectionRate, cfg.Limits.ConnectionBurst = 2.5, 4
	cfg.Routes[0].MaxConnections, cfg.Routes[0].MaxPlayers = 20, 30
	cfg.Limits.LoginBurstPerNetwork, cfg.Limits.MaxPlayersPerAddress = 7, 3
	cfg.Relay = relay.DataPathConfig{DataPath: relay.DataPathGoroutines, Loops: 3}
	cfg.Defence.AttackMode.PingsPerSecond = 42
	out, _, err := relayConfig(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if out.Limits.ConnectionRate != 2.5 || out.Limits.ConnectionBurst != 4 || out.Routes[0].MaxConnections != 20 {
		t.Errorf("relay limits %+v, route limit %d", out.Limits, out.Routes[0].MaxConnections)
	}
	if out.Defence.AttackMode != cfg.Defence.AttackMode {
		t.Errorf("relay attack mode %+v, want the file's %+v", out.Defence.AttackMode, cfg.Defence.AttackMode)
	}
	if out.Routes[0].MaxPlayers != 30 || out.Limits.LoginBurstPerNetwork != 7 || out.Limits.MaxPlayersPerAddress != 3 {
		t.Errorf("route max_players %d, limits %+v", out.Routes[0].MaxPlayers, out.Limits)
	}
	if out.DataPath != relay.DataPathGoroutines || out.Loops != 3 {
		t.Errorf("relay data path %q, %d loops; want goroutines, 3", out.DataPath, out.Loops)
	}
}

func TestRelaySettingsCarryTopLevelExtras(t *testing.T) {
	cfg := config.Default()
	cfg.ForwardSecret.Value = "s3cret"
	cfg.LoginWebhook.URL = "http://127.0.0.1:8080/hook"
	cfg.LandingPage = relay.LandingPage{Mode: relay.LandingRedirect, Redirect: "https://example.net/", Name: "n", Address: "a"}
	got, err := relaySettings(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if want := (clientaddr.ForwardSecret{Header: "X-Moonbridge-Secret", Value: "s3cret"}); got.ForwardSecret != want {
		t.Errorf("relay forward secret %+v, want %+v", got.ForwardSecret, want)
	}
	if want := (relay.LoginWebhook{URL: "http://127.0.0.1:8080/hook", Timeout: 5 * time.Second}); got.LoginWebhook != want {
		t.Errorf("relay login webhook %+v, want %+v", got.LoginWebhook, want)
	}
	if want := (relay.LandingPage{Mode: relay.LandingRedirect, Redirect: "https://example.net/", Name: "n", Address: "a"}); got.LandingPage != want {
		t.Errorf("relay landing page %+v, want %+v", got.LandingPage, want)
	}
}
