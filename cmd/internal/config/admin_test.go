package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 38: an admin port beyond loopback obeys anyone who reaches it unless a token guards its
// state-changing requests, so such a config is refused, naming the key; the token has one file,
// admin.token_file, or the routes API's older key.
func TestAdminConfigRefusesAnOpenPortBeyondLoopback(t *testing.T) {
	dir := t.TempDir()
	token, other, short := filepath.Join(dir, "token"), filepath.Join(dir, "other"), filepath.Join(dir, "short")
	writeTestFile(t, token, "0123456789abcdef0123\n")
	writeTestFile(t, other, "fedcba98765432100123\n")
	writeTestFile(t, short, "secret\n")
	admin := func(change func(*Admin)) Config {
		cfg := Default()
		change(&cfg.Admin)
		return cfg
	}
	refused := map[string]struct {
		cfg  Config
		want string
	}{
		"everywhere, no token": {admin(func(a *Admin) { a.Listen = "0.0.0.0:9100" }), `admin.token_file: admin.listen "0.0.0.0:9100" is not a loopback address`},
		"no host, no token":    {admin(func(a *Admin) { a.Listen = ":9100" }), "POST /transfer"},
		"public, no token":     {admin(func(a *Admin) { a.Listen = "192.0.2.1:9100" }), "admin.token_file"},
		"short token":          {admin(func(a *Admin) { a.Listen, a.TokenFile = "0.0.0.0:9100", short }), "admin.token_file: " + short + " holds 6 bytes"},
		"missing token":        {admin(func(a *Admin) { a.Listen, a.TokenFile = "127.0.0.1:9100", filepath.Join(dir, "none") }), "admin.token_file: no such file"},
		"two tokens": {admin(func(a *Admin) {
			a.Listen, a.TokenFile, a.RoutesAPI = "127.0.0.1:9100", token, RoutesAPI{Enabled: true, TokenFile: other}
		}), "admin.routes_api.token_file: names " + other + ", but admin.token_file names " + token},
		"bad host":      {admin(func(a *Admin) { a.AllowedHosts = []string{"admin.example.net", "evil.example:80"} }), `admin.allowed_hosts[1]: "evil.example:80" is no host name`},
		"wildcard host": {admin(func(a *Admin) { a.AllowedHosts = []string{"*.example.net"} }), "admin.allowed_hosts[0]"},
		"no idle bound": {admin(func(a *Admin) { a.IdleTimeout = 0 }), "admin.idle_timeout: must be positive"},
		"no read bound": {admin(func(a *Admin) { a.ReadTimeout = -1 }), "admin.read_timeout: must be positive"},
		"no cap":        {admin(func(a *Admin) { a.MaxConnections = 0 }), "admin.max_connections: must be positive"},
	}
	for name, tc := range refused {
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
	accepted := map[string]Config{
		"loopback without token": admin(func(a *Admin) { a.Listen = "127.0.0.1:9100" }),
		"everywhere with token":  admin(func(a *Admin) { a.Listen, a.TokenFile = "0.0.0.0:9100", token }),
		"the routes API's older key": admin(func(a *Admin) {
			a.Listen, a.RoutesAPI = "0.0.0.0:9100", RoutesAPI{Enabled: true, AllowRemote: true, TokenFile: token}
		}),
		"one file under both keys": admin(func(a *Admin) {
			a.Listen, a.TokenFile, a.RoutesAPI = "127.0.0.1:9100", token, RoutesAPI{Enabled: true, TokenFile: token}
		}),
		"the API with admin.token_file": admin(func(a *Admin) {
			a.Listen, a.TokenFile, a.RoutesAPI = "127.0.0.1:9100", token, RoutesAPI{Enabled: true}
		}),
		"listed hosts": admin(func(a *Admin) {
			a.AllowedHosts = []string{"moonbridge-admin.internal", "10.0.0.7", "[2001:db8::1]", "Admin.Example.NET."}
		}),
	}
	for name, cfg := range accepted {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TokenPath is token_file, else the routes API's key while the API is on.
func TestAdminTokenPath(t *testing.T) {
	for _, tc := range []struct {
		admin Admin
		want  string
	}{
		{Admin{}, ""},
		{Admin{TokenFile: "/a"}, "/a"},
		{Admin{RoutesAPI: RoutesAPI{Enabled: true, TokenFile: "/b"}}, "/b"},
		{Admin{RoutesAPI: RoutesAPI{TokenFile: "/b"}}, ""},
		{Admin{TokenFile: "/a", RoutesAPI: RoutesAPI{Enabled: true, TokenFile: "/a"}}, "/a"},
	} {
		if got := tc.admin.TokenPath(); got != tc.want {
			t.Errorf("%+v: TokenPath %q, want %q", tc.admin, got, tc.want)
		}
	}
}

// The admin defaults bound every connection.
func TestAdminDefaultsBoundTheConnections(t *testing.T) {
	a := Default().Admin
	if a.ReadTimeout <= 0 || a.WriteTimeout <= 0 || a.IdleTimeout <= 0 || a.MaxConnections <= 0 || a.MaxConnections > 128 {
		t.Errorf("admin defaults %+v: want positive timeouts and a cap of at most 128", a)
	}
}

// An Admin built in code without bounds gets the defaults', never none.
func TestAdminWithBounds(t *testing.T) {
	d := Default().Admin
	got := Admin{Listen: "127.0.0.1:0", IdleTimeout: time.Second}.WithBounds()
	if got.ReadTimeout != d.ReadTimeout || got.WriteTimeout != d.WriteTimeout || got.MaxConnections != d.MaxConnections ||
		got.IdleTimeout != time.Second || got.Listen != "127.0.0.1:0" {
		t.Errorf("WithBounds: %+v", got)
	}
}

func TestBansFileNameSaysItsFormat(t *testing.T) {
	for path, ok := range map[string]bool{"": true, "/etc/moonbridge/bans.yaml": true, "bans.yml": true, "bans.JSON": true,
		"bans.txt": false, "bans": false, "bans.yaml.bak": false} {
		if errs := validateBansFile(path); (len(errs) == 0) != ok {
			t.Errorf("bans_file %q: %v", path, errs)
		}
	}
}
