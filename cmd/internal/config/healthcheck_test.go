package config

import (
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/routes"
)

func TestRouteHealthCheckDefaults(t *testing.T) {
	cfg, err := Parse([]byte(`routes:
  - hosts: ["*"]
    backends: ["127.0.0.1:25565"]
  - name: survival
    hosts: [survival.example.net]
    backends: ["127.0.0.1:25566"]
    health_check:
      mode: status
      interval: 3s
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Routes[0].HealthCheck; got != routes.Default().HealthCheck {
		t.Errorf("a route without health_check got %+v, want the defaults %+v", got, routes.Default().HealthCheck)
	}
	want := routes.Default().HealthCheck
	want.Mode, want.Interval = routes.HealthStatus, 3*time.Second
	if got := cfg.Routes[1].HealthCheck; got != want {
		t.Errorf("a partial health_check gave %+v, want %+v (unset keys keep their defaults)", got, want)
	}
	if cfg.Routes[1].Name != "survival" {
		t.Errorf("name: %q", cfg.Routes[1].Name)
	}
	if _, err := Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\"]\n    health_check: {mode: off, interval: 0s}\n"), noEnv); err != nil {
		t.Errorf("mode off needs no interval: %v", err)
	}
}

func TestRouteHealthCheckErrorsNameTheKey(t *testing.T) {
	route := "routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\"]\n"
	cases := map[string]struct{ yaml, want string }{
		"mode":     {route + "    health_check: {mode: ping}\n", `routes[0].health_check.mode: "ping" is not one of tcp, status, off`},
		"interval": {route + "    health_check: {interval: 0s}\n", "routes[0].health_check.interval: must be a positive duration"},
		"timeout":  {route + "    health_check: {timeout: -1s}\n", "routes[0].health_check.timeout: must be a positive duration"},
		"rise":     {route + "    health_check: {rise: 0}\n", "routes[0].health_check.rise: must be at least 1"},
		"fall":     {route + "    health_check: {fall: 0}\n", "routes[0].health_check.fall: must be at least 1"},
		"unknown":  {route + "    health_check: {every: 5s}\n", `routes[0].health_check.every: unknown key`},
		"twice":    {"routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\", \"b:1\", \"a:1\"]\n", `routes[0].backends[2]: "a:1" is listed twice`},
		"label": {route + "  - hosts: [\"*\", x.example]\n    backends: [\"b:1\"]\n",
			`routes[1].name: this route is labelled "*", as routes[0] is; give one of them a name`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), noEnv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// A name, or a path, tells two "*" routes apart.
	for _, distinct := range []string{
		route + "  - name: other\n    hosts: [\"*\"]\n    backends: [\"b:1\"]\n",
		route + "  - hosts: [\"*\"]\n    paths: [/creative]\n    backends: [\"b:1\"]\n",
	} {
		if _, err := Parse([]byte(distinct), noEnv); err != nil {
			t.Errorf("%s: %v", distinct, err)
		}
	}
}
