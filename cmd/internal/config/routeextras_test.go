package config

import (
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/relay"

	"github.com/moonbridge/moonbridge/routes"
)

func TestRouteExtraKeys(t *testing.T) {
	cfg, err := Parse([]byte(`routes:
  - hosts: ["*"]
    backends: ["127.0.0.1:25565"]
  - hosts: [play.example.net]
    backends: ["127.0.0.1:25566"]
    status_cache: 5s
    fallback: last_known
    last_known: {version_name: "down"}
    balance: least-connections
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Routes[0]; r.StatusCache != 0 || r.Fallback != routes.FallbackFixed || r.LastKnown != routes.Default().LastKnown || r.Balance != routes.BalanceFailover {
		t.Errorf("a route without the keys got cache %v, fallback %q, last_known %+v; want the defaults", r.StatusCache, r.Fallback, r.LastKnown)
	}
	want := routes.LastKnown{MOTDPrefix: routes.Default().LastKnown.MOTDPrefix, VersionName: "down"}
	if r := cfg.Routes[1]; r.StatusCache != 5*time.Second || r.Fallback != routes.FallbackLastKnown || r.LastKnown != want {
		t.Errorf("got cache %v, fallback %q, last_known %+v; want 5s, last_known, %+v", r.StatusCache, r.Fallback, r.LastKnown, want)
	}
	if b := cfg.Routes[1].Balance; b != routes.BalanceLeastConnections {
		t.Errorf("balance %q", b)
	}
	for text, wantKey := range map[string]string{
		"fallback: newest":  "routes[0].fallback",
		"status_cache: -1s": "routes[0].status_cache",
		"balance: fastest":  "routes[0].balance",
	} {
		_, err := Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\"]\n    "+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("%s: error %v, want one naming %s", text, err, wantKey)
		}
	}
}

func TestRouteCaptureKeys(t *testing.T) {
	good := "routes:\n  - hosts: [\"*.play.example.net\"]\n    backends: [\"${1}.servers.internal:25565\"]\n"
	if _, err := Parse([]byte(good), noEnv); err != nil {
		t.Errorf("a wildcard route with ${1}: %v", err)
	}
	for text, wantKey := range map[string]string{
		"hosts: [play.example.net]\n    backends: [\"${1}.internal:25565\"]": "routes[0].hosts[0]",
		"hosts: [\"*.example.net\"]\n    backends: [\"internal:${1}\"]":      "routes[0].backends[0]",
	} {
		_, err := Parse([]byte("routes:\n  - "+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("%s: error %v, want one naming %s", text, err, wantKey)
		}
	}
}

func TestForwardSecret(t *testing.T) {
	cfg, err := Parse([]byte("forward_secret:\n  value: s3cret\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ForwardSecret != (ForwardSecret{Header: "X-Moonbridge-Secret", Value: "s3cret"}) {
		t.Errorf("got %+v, want the default header with the value", cfg.ForwardSecret)
	}
	out, err := cfg.Marshal()
	if err != nil || strings.Contains(string(out), "s3cret") {
		t.Errorf("the effective config shows the secret (%v):\n%s", err, out)
	}
	_, err = Parse([]byte("forward_secret:\n  header: \"X Secret\"\n  value: s3cret\n"), noEnv)
	if err == nil || !strings.Contains(err.Error(), "forward_secret.header") {
		t.Errorf("a header name with a space: %v", err)
	}
}

func TestLoginWebhook(t *testing.T) {
	cfg, err := Parse([]byte("login_webhook:\n  url: https://hooks.example.net/mc\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LoginWebhook != (relay.LoginWebhook{URL: "https://hooks.example.net/mc", Timeout: 5 * time.Second}) {
		t.Errorf("got %+v", cfg.LoginWebhook)
	}
	for text, wantKey := range map[string]string{
		"url: ftp://x/":  "login_webhook.url",
		"url: /relative": "login_webhook.url",
		"timeout: 0s":    "login_webhook.timeout",
	} {
		_, err := Parse([]byte("login_webhook:\n  "+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("%s: error %v, want one naming %s", text, err, wantKey)
		}
	}
}

func TestRouteWakeKeys(t *testing.T) {
	cfg, err := Parse([]byte(`routes:
  - hosts: ["*"]
    backends: ["127.0.0.1:25565"]
  - hosts: [survival.example.net]
    backends: ["127.0.0.1:25566"]
    wake:
      command: [systemctl, start, minecraft]
      stop_after_idle: 10m
      stop_command: [systemctl, stop, minecraft]
      hold: false
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Routes[0].Wake.On() {
		t.Errorf("a route without wake wakes: %+v", cfg.Routes[0].Wake)
	}
	w := cfg.Routes[1].Wake
	if !w.On() || w.Hold || w.StopAfterIdle != 10*time.Minute || w.ReadyTimeout != routes.Default().Wake.ReadyTimeout || len(w.StopCommand) != 3 {
		t.Errorf("wake %+v", w)
	}
	route := "routes:\n  - hosts: [\"*.example.net\"]\n    backends: [\"a:1\"]\n    wake:\n      "
	for text, wantKey := range map[string]string{
		"command: [x]\n      webhook: http://h/":  "routes[0].wake",
		"webhook: ftp://h/":                       "routes[0].wake.webhook",
		"command: [x]\n      ready_timeout: 0s":   "routes[0].wake.ready_timeout",
		"command: [x]\n      stop_after_idle: 5m": "routes[0].wake.stop_after_idle",
	} {
		_, err := Parse([]byte(route+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("%q: error %v, want one naming %s", text, err, wantKey)
		}
	}
	_, err = Parse([]byte("routes:\n  - hosts: [\"*.example.net\"]\n    backends: [\"${1}:1\"]\n    wake: {command: [x]}\n"), noEnv)
	if err == nil || !strings.Contains(err.Error(), "routes[0].wake") {
		t.Errorf("wake with ${1} backends: %v", err)
	}
}

func TestLandingPageKeys(t *testing.T) {
	cfg, err := Parse([]byte("landing_page:\n  name: Moon Island\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LandingPage != (relay.LandingPage{Mode: relay.LandingPageMode, Name: "Moon Island"}) {
		t.Errorf("got %+v", cfg.LandingPage)
	}
	for text, wantKey := range map[string]string{
		"mode: banner":   "landing_page.mode",
		"mode: redirect": "landing_page.redirect",
	} {
		_, err := Parse([]byte("landing_page:\n  "+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("%s: error %v, want one naming %s", text, err, wantKey)
		}
	}
}
