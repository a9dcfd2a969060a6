package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/access"

	"github.com/moonbridge/moonbridge/routes"
)

// A route in JSON or YAML takes the file's keys and, for what it leaves out, the file's
// defaults.
func TestParseRouteTakesJSONAndYAMLWithDefaults(t *testing.T) {
	texts := map[string]string{
		"json": `{"name": "survival", "hosts": ["play.example.net"], "backends": ["10.0.0.5:25565"], "health_check": {"interval": "5s"}}`,
		"yaml": "name: survival\nhosts: [play.example.net]\nbackends: [10.0.0.5:25565]\nhealth_check:\n  interval: 5s\n",
	}
	want := routes.Default("10.0.0.5:25565")
	want.Name, want.Hosts = "survival", []string{"play.example.net"}
	want.HealthCheck.Interval = 5 * time.Second
	for name, text := range texts {
		got, err := ParseRoute([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v\nwant %+v", name, got, want)
		}
	}
}

// What is no route at all wraps ErrNotARoute; a route with a wrong value does not, and names
// the key under "route" with its line.
func TestParseRouteErrors(t *testing.T) {
	cases := map[string]struct {
		text, want string
		notARoute  bool
	}{
		"empty":       {"  \n", "empty", true},
		"bad json":    {`{"hosts": ["a"`, "not found", true},
		"unknown key": {`{"hosts": ["a"], "backends": ["b:1"], "colour": "red"}`, "line 1: route.colour: unknown key; the keys in route are", true},
		"wrong kind":  {"hosts: play.example.net\nbackends: [b:1]\n", "line 1: route.hosts: want a list", true},
		"a list":      {"[a, b]", "route: want keys and values", true},
		"two":         {"hosts: [a]\n---\nhosts: [b]\n", "want one YAML document", true},
		"bad backend": {"hosts: [a]\nbackends: [nowhere]\n", `line 2: route.backends[0]: "nowhere" is not HOST:PORT`, false},
		"no backends": {"hosts: [a]\n", "route.backends: name at least one HOST:PORT", false},
		"bad host":    {"hosts: [a, 'mc.*.example.net']\nbackends: [b:1]\n", `line 1: route.hosts[1]: "mc.*.example.net": want a name, *.domain or "*"`, false},
		"bad balance": {"hosts: [a]\nbackends: [b:1]\nbalance: fastest\n", `line 3: route.balance: "fastest" is not one of`, false},
		"placeholder": {"hosts: [a]\nbackends: ['${BACKEND}']\n", `"${BACKEND}" is not HOST:PORT`, false},
	}
	for name, tc := range cases {
		_, err := ParseRoute([]byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
			continue
		}
		if errors.Is(err, ErrNotARoute) != tc.notARoute {
			t.Errorf("%s: ErrNotARoute %v, want %v: %v", name, !tc.notARoute, tc.notARoute, err)
		}
	}
}

// CheckRouteFrom gives a route from elsewhere the file's checks, those that need the rest of the
// file among them.
func TestCheckRouteNeedsTheFilesKeys(t *testing.T) {
	r := routes.Default("10.0.0.5:25565")
	r.Access.Tokens = access.TokensRequired
	cfg := Default()
	if err := cfg.CheckRouteFrom(OriginAPI, "route", r); err == nil || !strings.Contains(err.Error(), "route.access.tokens: required needs access.keys") {
		t.Errorf("tokens without keys: %v", err)
	}
	r.Access.Tokens = access.TokensOff
	r.Backends = []string{"10.0.0.5"}
	if err := cfg.CheckRouteFrom(OriginDocker, "docker/mc", r); err == nil || !strings.Contains(err.Error(), `docker/mc.backends[0]: "10.0.0.5" is not HOST:PORT`) {
		t.Errorf("a backend without a port: %v", err)
	}
	if err := cfg.CheckRouteFrom(OriginAPI, "route", routes.Default("10.0.0.5:25565")); err != nil {
		t.Errorf("a good route: %v", err)
	}
}

// What RouteJSON and MarshalRoutes write, ParseRoute and ParseRoutes read back unchanged.
func TestRouteTextsRoundTrip(t *testing.T) {
	r := routes.Default("10.0.0.5:25565", "10.0.0.6:25565")
	r.Name, r.Hosts, r.Paths = "survival", []string{"play.example.net", "*.play.example.net"}, []string{"/mc"}
	r.StatusCache, r.Balance, r.Fallback = 5*time.Second, routes.BalanceRoundRobin, routes.FallbackLastKnown
	r.Access.Allow = []string{"10.0.0.0/8"}
	text, err := RouteJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseRoute(text); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("RouteJSON %s read back as %+v, %v", text, back, err)
	}
	other := routes.Default("10.0.0.7:25565")
	other.Name, other.Paths = "creative", []string{} // as the file reads paths: []
	file, err := MarshalRoutes([]Route{r, other})
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseRoutes(file); err != nil || !reflect.DeepEqual(back, []Route{r, other}) {
		t.Errorf("MarshalRoutes\n%s\nread back as %+v, %v", file, back, err)
	}
	if empty, err := MarshalRoutes(nil); err != nil || string(empty) != "routes: []\n" {
		t.Errorf("no routes: %q, %v", empty, err)
	}
	if _, err := ParseRoutes([]byte("routes:\n  - hosts: [a]\n    backends: [b:1]\n  - hosts: [a]\n    backends: [c:1]\n")); err == nil ||
		!strings.Contains(err.Error(), `routes[1].name: this route is labelled "a", as routes[0] is`) {
		t.Errorf("two routes labelled alike: %v", err)
	}
}

// The routes API needs an admin address on loopback (unless allow_remote), a token of at least
// 16 bytes, and a directory for its state file.
func TestRoutesAPIValidation(t *testing.T) {
	dir := t.TempDir()
	token, short := filepath.Join(dir, "token"), filepath.Join(dir, "short")
	writeTestFile(t, token, "0123456789abcdef0123\n")
	writeTestFile(t, short, "secret\n")
	on := func(listen, tokenFile string) Config {
		cfg := Default()
		cfg.Admin.Listen, cfg.Admin.RoutesAPI = listen, RoutesAPI{Enabled: true, TokenFile: tokenFile}
		return cfg
	}
	cases := map[string]struct {
		cfg  func() Config
		want string
	}{
		"no admin":      {func() Config { return on("", token) }, "admin.routes_api.enabled: the API is served on the admin endpoint"},
		"everywhere":    {func() Config { return on(":9100", token) }, `admin.listen: ":9100" is not a loopback address`},
		"public":        {func() Config { return on("192.0.2.1:9100", token) }, "allow_remote"},
		"no token":      {func() Config { return on("127.0.0.1:9100", "") }, "admin.token_file: the routes API needs the admin token"},
		"missing token": {func() Config { return on("127.0.0.1:9100", filepath.Join(dir, "none")) }, "no such file"},
		"short token":   {func() Config { return on("127.0.0.1:9100", short) }, "holds 6 bytes of token; want at least 16"},
		"state nowhere": {func() Config {
			c := on("[::1]:9100", token)
			c.Admin.RoutesAPI.StateFile = "/nonexistent/x/routes.yml"
			return c
		}, "directory /nonexistent/x"},
		"state is a dir": {func() Config { c := on("localhost:9100", token); c.Admin.RoutesAPI.StateFile = dir; return c }, "is a directory"},
	}
	for name, tc := range cases {
		if err := tc.cfg().Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
	good := on("127.0.0.1:9100", token)
	good.Admin.RoutesAPI.StateFile = filepath.Join(dir, "routes.yml")
	remote := on("0.0.0.0:9100", token)
	remote.Admin.RoutesAPI.AllowRemote = true
	off := Default()
	off.Admin.RoutesAPI.TokenFile = filepath.Join(dir, "none") // not read while the API is off
	for name, cfg := range map[string]Config{"loopback": good, "allow_remote": remote, "off": off} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if w := remote.Warnings(); len(w) != 1 || w[0].Kind != WarnRemoteAPI || !strings.Contains(w[0].Reason, "plain HTTP") {
		t.Errorf("warnings of an API beyond loopback: %v", w)
	}
	if w := good.Warnings(); len(w) != 0 {
		t.Errorf("warnings of an API on loopback: %v", w)
	}
	if got, err := ReadAPIToken(token); err != nil || got != "0123456789abcdef0123" {
		t.Errorf("ReadAPIToken: %q, %v", got, err)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
