package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/mc/auth"

	"github.com/moonbridge/moonbridge/routes"
)

func TestRouteAuthDefaults(t *testing.T) {
	cfg, err := Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"127.0.0.1:25565\"]\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Routes[0]; r.Auth != routes.AuthPassthrough || r.Forwarding != auth.ForwardNone {
		t.Errorf("a route without auth keys: auth %q forwarding %q, want passthrough and none", r.Auth, r.Forwarding)
	}
}

func TestRouteAuthErrorsNameTheKey(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("s3cret\n"), 0o600)
	route := "routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\"]\n"
	cases := map[string]struct{ yaml, want string }{
		"auth":       {route + "    auth: mojang\n", `routes[0].auth: "mojang" is not one of passthrough, online, offline`},
		"forwarding": {route + "    auth: online\n    forwarding: bungee\n", `routes[0].forwarding: "bungee" is not one of`},
		"passthrough forwarding": {route + "    forwarding: bungeecord\n",
			"routes[0].forwarding: needs auth online or offline"},
		"no secret":      {route + "    auth: online\n    forwarding: velocity\n", "routes[0].velocity_secret_file: velocity forwarding needs"},
		"missing secret": {route + "    auth: online\n    forwarding: velocity\n    velocity_secret_file: /nonexistent/s\n", "routes[0].velocity_secret_file"},
		"session server": {route + "login:\n  session_server: ftp://x\n", `login.session_server: "ftp://x" is not an http(s) URL`},
		"timeout":        {route + "login:\n  session_timeout: 0s\n", "login.session_timeout: must be a positive duration"},
		"cipher":         {route + "login:\n  cipher: openssl\n", `login.cipher: "openssl" is not one of auto, boringssl, go`},
		"meter rate":     {route + "login:\n  meter:\n    rate: 0\n", "login.meter.rate: must be a positive number"},
		"meter burst":    {route + "login:\n  meter:\n    burst: 0\n", "login.meter.burst: must be at least 1"},
		"meter queue":    {route + "login:\n  meter:\n    queue: -1\n", "login.meter.queue: must be 0 or more"},
		"meter wait":     {route + "login:\n  meter:\n    max_wait: 25s\n", "login.meter.max_wait: must be 0 or more, and with login.session_timeout (5s)"},
	}
	for name, c := range cases {
		_, err := Parse([]byte(c.yaml), noEnv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	ok := route + "    auth: online\n    forwarding: velocity\n    velocity_secret_file: " + secret + "\n"
	if _, err := Parse([]byte(ok), noEnv); err != nil {
		t.Errorf("online with velocity and a secret: %v", err)
	}
}
