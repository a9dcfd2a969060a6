package routebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/routes"
)

// A route from the routes API cannot run a program, call a URL, start a container or read a
// file the config file does not name: each key is refused with 422 and an error that names it.
// Whether a secret file exists makes no difference to the answer.
func TestRoutesAPIRefusesWhatTheOwnerDidNotName(t *testing.T) {
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	server, _ := apiServer(t, book)
	secret := filepath.Join(t.TempDir(), "velocity.secret")
	writeFile(t, secret, []byte("s3cret\n"))
	const base = `"hosts": ["a.example.net"], "backends": ["10.0.0.5:25565"]`
	velocity := func(path string) string {
		return `{"name": "v", ` + base + `, "auth": "offline", "forwarding": "velocity", "velocity_secret_file": "` + path + `"}`
	}
	for _, tc := range []struct{ name, body, key string }{
		{"command", `{"name": "c", ` + base + `, "wake": {"command": ["/bin/sh", "-c", "id"]}}`, ".wake.command"},
		{"stop command", `{"name": "s", ` + base + `, "wake": {"webhook": "http://127.0.0.1:9/start", "stop_command": ["/bin/true"]}}`, ".wake.stop_command"},
		{"webhook", `{"name": "w", ` + base + `, "wake": {"webhook": "http://169.254.169.254/latest"}}`, ".wake.webhook"},
		{"container", `{"name": "k", ` + base + `, "wake": {"container": "postgres"}}`, ".wake.container"},
		{"existing secret file", velocity(secret), ".velocity_secret_file"},
	} {
		code, body := apiCall(t, server.URL, "POST", "/routes", testToken, tc.body)
		var answer struct{ Error string }
		if err := json.Unmarshal([]byte(body), &answer); code != http.StatusUnprocessableEntity || err != nil ||
			!strings.Contains(answer.Error, tc.key) || !strings.Contains(answer.Error, "admin.routes_api.allow") {
			t.Errorf("%s: %d %s, want 422 naming %s and admin.routes_api.allow", tc.name, code, body, tc.key)
		}
	}
	_, there := apiCall(t, server.URL, "POST", "/routes", testToken, velocity(secret))
	_, missing := apiCall(t, server.URL, "POST", "/routes", testToken, velocity(secret+".missing"))
	if strings.ReplaceAll(missing, ".missing", "") != there {
		t.Errorf("a secret file that exists and one that does not get different answers:\n%s\n%s", there, missing)
	}
	if got := fake.labels(); !slices.Equal(got, []string{"lobby"}) {
		t.Errorf("after the refused routes the relay serves %v", got)
	}
}

// A discovered route cannot wake a container the owner did not let the source wake: it is left
// out with a reason that names the key.
func TestDiscoveredRouteCannotWakeUnlessAllowed(t *testing.T) {
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	waking := route("docker/survival", "survival.example.net")
	waking.Wake.Container = "0123abcd"
	book.SetDiscovered("docker", []config.Route{waking})
	if got := fake.labels(); !slices.Equal(got, []string{"lobby"}) {
		t.Errorf("the relay serves %v, want the file's route alone", got)
	}
	if e, _ := book.Find("docker/survival"); !strings.Contains(e.LeftOut, "wake.container") || !strings.Contains(e.LeftOut, "discovery.docker") {
		t.Errorf("the waking route is left out for %q, want a reason naming wake.container and discovery.docker", e.LeftOut)
	}
}

// A discovered route's country lists (labels, annotations) are served as a file route's: they
// narrow who may use that route, and the file's route is untouched by them.
func TestDiscoveredRouteCountriesNarrowOnlyItself(t *testing.T) {
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	eu := route("docker/eu", "eu.example.net")
	eu.Countries = routes.Countries{Allow: []string{"NL", "BE"}, Deny: []string{}}
	book.SetDiscovered("docker", []config.Route{eu})
	if got := fake.labels(); !slices.Equal(got, []string{"lobby", "docker/eu"}) {
		t.Fatalf("the relay serves %v", got)
	}
	for _, r := range fake.routes {
		want := []string(nil)
		if r.Label() == "docker/eu" {
			want = []string{"NL", "BE"}
		}
		if got := r.Countries.Allow; len(got) != len(want) || len(want) > 0 && !slices.Equal(got, want) {
			t.Errorf("route %s allows %v, want %v", r.Label(), got, want)
		}
	}
}

// A route from the API or discovery cannot take a host a file route serves, as the relay
// matches hosts (an exact name beats any wildcard, a longer wildcard a shorter one, "*" comes
// last); one that takes none of the file's hosts is served.
func TestNonFileRouteCannotTakeFileHosts(t *testing.T) {
	for _, tc := range []struct {
		file, other string
		takes       bool
	}{
		{"*", "play.example.net", true},
		{"*", "*.net", true},
		{"*", "*", true},
		{"*.example.net", "play.example.net", true},
		{"*.example.net", "a.b.example.net", true},
		{"*.example.net", "*.a.example.net", true},
		{"*.example.net", "*.EXAMPLE.net.", true},
		{"*.example.net", "*.net", false},
		{"*.example.net", "example.net", false},
		{"*.example.net", "*", false},
		{"play.example.net", "*.example.net", false},
		{"play.example.net", "Play.Example.Net", true},
	} {
		book, fake, _ := testBook(t, fileWith(route("lobby", tc.file)), nil, nil)
		err := book.Add(route("api", tc.other))
		var refused *refusedChange
		if isConflict := errors.As(err, &refused) && refused.why == refusedConflict; isConflict != tc.takes {
			t.Errorf("file %q, API %q: %v, want a conflict %v", tc.file, tc.other, err, tc.takes)
		}
		book, fake, _ = testBook(t, fileWith(route("lobby", tc.file)), nil, nil)
		book.SetDiscovered("docker", []config.Route{route("docker/x", tc.other)})
		if e, _ := book.Find("docker/x"); (e.LeftOut != "") != tc.takes || tc.takes && !strings.Contains(e.LeftOut, "config file") {
			t.Errorf("file %q, docker %q: left out for %q, want left out %v", tc.file, tc.other, e.LeftOut, tc.takes)
		}
		if served := slices.Contains(fake.labels(), "docker/x"); served == tc.takes {
			t.Errorf("file %q, docker %q: the relay serves %v", tc.file, tc.other, fake.labels())
		}
	}
}

// Discovery cannot take a host an API route serves, by wildcard either.
func TestDiscoveryCannotTakeAPIHosts(t *testing.T) {
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	if err := book.Add(route("games", "*.games.example.net")); err != nil {
		t.Fatal(err)
	}
	book.SetDiscovered("kubernetes", []config.Route{route("kube/g/survival", "survival.games.example.net")})
	if e, _ := book.Find("kube/g/survival"); !strings.Contains(e.LeftOut, "routes API") {
		t.Errorf("the Service's route is left out for %q, want a reason naming the routes API", e.LeftOut)
	}
	if got := fake.labels(); !slices.Equal(got, []string{"lobby", "games"}) {
		t.Errorf("the relay serves %v", got)
	}
}

// Hosts that are no names are refused by the API (422) and left out of discovery.
func TestHostsThatAreNoNamesAreRefused(t *testing.T) {
	book, _, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	server, _ := apiServer(t, book)
	for i, host := range badHosts {
		name := fmt.Sprintf("bad%d", i)
		body, _ := json.Marshal(map[string]any{"name": name, "hosts": []string{host}, "backends": []string{"10.0.0.5:25565"}})
		if code, answer := apiCall(t, server.URL, "POST", "/routes", testToken, string(body)); code != http.StatusUnprocessableEntity || !strings.Contains(answer, "route.hosts[0]") {
			t.Errorf("POST with host %q: %d %s, want 422 naming route.hosts[0]", host, code, answer)
		}
		book.SetDiscovered("docker", []config.Route{route("docker/"+name, host)})
		if e, _ := book.Find("docker/" + name); !strings.Contains(e.LeftOut, "hosts[0]") {
			t.Errorf("docker route with host %q: left out for %q", host, e.LeftOut)
		}
	}
}

// badHosts are host patterns that are no name, wildcard or "*".
var badHosts = []string{"bad host!", "a..b", "play.test:25565", ".example.net", "example.net..", "*.", "*.*",
	"-a.example.net", "a-.example.net", strings.Repeat("a", 64) + ".net", strings.Repeat("abcdefghi.", 26) + "net", "a/b", "[::1]"}

// What the owner lists for a source, its routes may name: the exact command, webhook,
// container and secret file; a command with other arguments is still refused. Docker's own
// containers wake when discovery.docker.wake is on.
func TestAllowedValuesAreTaken(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "velocity.secret")
	writeFile(t, secret, []byte("s3cret\n"))
	file := fileWith(route("lobby", "play.example.net"))
	allow := &file.Admin.RoutesAPI.Allow
	allow.Commands = [][]string{{"/usr/local/bin/start", "survival"}, {"/usr/local/bin/stop", "survival"}}
	allow.Webhooks, allow.Containers, allow.SecretFiles = []string{"http://127.0.0.1:9/wake"}, []string{"mc-creative"}, []string{secret}
	file.Discovery.Docker.Wake = true
	book, fake, _ := testBook(t, file, nil, nil)

	command := route("command", "a.example.net")
	command.Wake.Command, command.Wake.StopCommand = []string{"/usr/local/bin/start", "survival"}, []string{"/usr/local/bin/stop", "survival"}
	command.Wake.StopAfterIdle = time.Minute
	webhook := route("webhook", "b.example.net")
	webhook.Wake.Webhook = "http://127.0.0.1:9/wake"
	container := route("container", "c.example.net")
	container.Wake.Container = "mc-creative"
	velocity := route("velocity", "d.example.net")
	velocity.Auth, velocity.Forwarding, velocity.VelocitySecretFile = routes.AuthOffline, auth.ForwardVelocity, secret
	for _, r := range []config.Route{command, webhook, container, velocity} {
		if err := book.Add(r); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
	other := route("other", "e.example.net")
	other.Wake.Command = []string{"/usr/local/bin/start", "survival; id"}
	if err := book.Add(other); err == nil || !strings.Contains(err.Error(), "other.wake.command") {
		t.Errorf("a listed program with other arguments: %v", err)
	}

	waking := route("docker/survival", "survival.example.net")
	waking.Wake.Container = "0123abcd"
	book.SetDiscovered("docker", []config.Route{waking})
	want := []string{"lobby", "command", "webhook", "container", "velocity", "docker/survival"}
	if got := fake.labels(); !slices.Equal(got, want) {
		t.Errorf("the relay serves %v, want %v", got, want)
	}
	kubeContainer := route("kube/a/creative", "k.example.net")
	kubeContainer.Wake.Container = "mc-creative"
	book.SetDiscovered("kubernetes", []config.Route{kubeContainer})
	if e, _ := book.Find("kube/a/creative"); !strings.Contains(e.LeftOut, "discovery.kubernetes.allow.containers") {
		t.Errorf("a Service route naming the API's allowed container: left out for %q, want the kubernetes list named", e.LeftOut)
	}
}

// The owner lets a source claim hosts a more trusted route serves with its hosts: patterns; a
// host they do not cover is still refused, and a host named exactly by both still clashes.
func TestHostsLetASourceClaim(t *testing.T) {
	file := fileWith(route("default", "*"), route("lobby", "play.example.net"))
	file.Admin.RoutesAPI.Hosts = []string{"*.games.example.net"}
	file.Discovery.Kubernetes.Hosts = []string{"*.example.net"}
	book, fake, _ := testBook(t, file, nil, nil)
	if err := book.Add(route("survival", "survival.games.example.net")); err != nil {
		t.Errorf("a host the API may claim: %v", err)
	}
	if err := book.Add(route("games", "*.games.example.net")); err != nil {
		t.Errorf("the API's whole pattern: %v", err)
	}
	if err := book.Add(route("other", "other.example.net")); err == nil || !strings.Contains(err.Error(), "admin.routes_api.hosts") {
		t.Errorf("a host the API may not claim: %v", err)
	}
	book.SetDiscovered("kubernetes", []config.Route{route("kube/a/creative", "creative.example.net"),
		route("kube/a/lobby", "play.example.net"), route("kube/a/games", "x.games.example.net")})
	want := []string{"default", "lobby", "survival", "games", "kube/a/creative", "kube/a/games"}
	if got := fake.labels(); !slices.Equal(got, want) {
		t.Errorf("the relay serves %v, want %v", got, want)
	}
	if e, _ := book.Find("kube/a/lobby"); !strings.Contains(e.LeftOut, `host "play.example.net" is routed by "lobby"`) {
		t.Errorf("a Service naming the file's exact host: left out for %q", e.LeftOut)
	}
}

// An API route kept from before (the state file) that names what the list no longer has is
// left out at start with the reason, not served.
func TestStoredAPIRouteNamingWhatIsNotListedIsLeftOut(t *testing.T) {
	stored := route("survival", "survival.example.net")
	stored.Wake.Command = []string{"/usr/local/bin/start"}
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), []config.Route{stored}, nil)
	if e, _ := book.Find("survival"); e.Origin != originAPI || !strings.Contains(e.LeftOut, "survival.wake.command") {
		t.Errorf("the stored route: %+v", e)
	}
	if got := fake.labels(); !slices.Equal(got, []string{"lobby"}) {
		t.Errorf("the relay serves %v", got)
	}
}
