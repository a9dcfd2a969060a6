package routebook

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/logging"
	synctest "github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/routes"
)

// fakeRelay keeps the routes the book last gave it.
type fakeRelay struct{ routes []relay.Route }

func (f *fakeRelay) SetRoutes(routes []relay.Route) error {
	if _, err := relay.NewRouter(routes); err != nil {
		return err // what the relay refuses, the book must not have given it
	}
	f.routes = routes
	return nil
}

func (f *fakeRelay) labels() []string {
	var out []string
	for i := range f.routes {
		out = append(out, f.routes[i].Label())
	}
	return out
}

// testBook is a book of file's routes and the API's api, attached to a fake relay; it returns
// the book, the relay and the book's JSON log.
func testBook(t *testing.T, file config.Config, api []config.Route, persist func([]config.Route) error) (*Book, *fakeRelay, *synctest.SyncBuffer) {
	t.Helper()
	var logs synctest.SyncBuffer
	log, err := logging.New(&logs, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	book := New(log, api, persist)
	routes, err := FileRoutes(file, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	relayCfg := relay.Config{Routes: routes}
	if err := book.Begin(file, &relayCfg); err != nil {
		t.Fatal(err)
	}
	fake := &fakeRelay{routes: relayCfg.Routes}
	book.Attach(fake)
	return book, fake, &logs
}

// route is a route named name for hosts, to a backend that need not exist.
func route(name string, hosts ...string) config.Route {
	r := routes.Default("127.0.0.1:1")
	r.Name, r.Hosts = name, hosts
	return r
}

// fileWith is the default config with these routes.
func fileWith(routes ...config.Route) config.Config {
	cfg := config.Default()
	cfg.Routes = routes
	return cfg
}

// routeCount reads moonbridge_routes{origin,state}.
func routeCount(book *Book, origin, state string) float64 {
	return valueOf(book.gauge.WithLabelValues(origin, state))
}

// writeFile writes data to path, failing the test if it cannot.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// valueOf reads a gauge's or a counter's value.
func valueOf(m prometheus.Metric) float64 {
	var d dto.Metric
	m.Write(&d)
	return d.GetGauge().GetValue() + d.GetCounter().GetValue()
}

// A source's route that fails a file route's checks, or clashes with a route of the file (a
// host on the same paths, a name), is left out with one log line and counted; the others are
// served. The same update again logs nothing new.
func TestDiscoveredRoutesAreLeftOutOneByOne(t *testing.T) {
	onPath := route("web", "web.example.net")
	onPath.Paths = []string{"/mc"}
	book, fake, logs := testBook(t, fileWith(route("lobby", "play.example.net"), onPath), nil, nil)
	badHost := route("docker/bad", "mc.*.example.net")
	noPort := route("docker/noport", "noport.example.net")
	noPort.Backends = []string{"10.0.0.5"}
	sameHost := route("docker/lobby-too", "PLAY.example.net.")
	sameName := route("lobby", "other.example.net")
	otherPath := route("docker/creative", "web.example.net") // beside the file's on another path
	otherPath.Paths = []string{"/creative"}
	update := []config.Route{route("docker/survival", "survival.example.net"), badHost, noPort, sameHost, sameName, otherPath}
	book.SetDiscovered("docker", update)
	if got, want := fake.labels(), []string{"lobby", "web", "docker/survival", "docker/creative"}; !slices.Equal(got, want) {
		t.Errorf("the relay serves %v, want %v", got, want)
	}
	if served, left := routeCount(book, "docker", "served"), routeCount(book, "docker", "left_out"); served != 2 || left != 4 {
		t.Errorf("moonbridge_routes for docker: served %v, left_out %v; want 2 and 4", served, left)
	}
	reasons := map[string]string{}
	for _, e := range book.List() {
		reasons[e.Route.Label()+"@"+e.Origin] = e.LeftOut
	}
	for key, want := range map[string]string{
		"docker/bad@docker":       `want a name, *.domain or "*"`,
		"docker/noport@docker":    `"10.0.0.5" is not HOST:PORT`,
		"docker/lobby-too@docker": `host "PLAY.example.net." is routed by "lobby" from the config file already`,
		"lobby@docker":            `the name "lobby" is taken by a route from the config file`,
		"docker/survival@docker":  "",
		"lobby@file":              "",
	} {
		if got := reasons[key]; !strings.Contains(got, want) || (want == "") != (got == "") {
			t.Errorf("%s: left out for %q, want %q", key, got, want)
		}
	}
	book.SetDiscovered("docker", update)
	if n := strings.Count(logs.String(), "route left out"); n != 4 {
		t.Errorf("%d lines say a route is left out after the same update twice, want 4:\n%s", n, logs.String())
	}
	book.SetDiscovered("docker", nil)
	if got := fake.labels(); !slices.Equal(got, []string{"lobby", "web"}) {
		t.Errorf("after the source found nothing the relay serves %v", got)
	}
	if served := routeCount(book, "docker", "served"); served != 0 {
		t.Errorf("moonbridge_routes{docker,served} = %v after the source found nothing", served)
	}
}

// For a host, the API wins over discovery, whichever came first; a name is the first one's.
func TestAPIRoutesWinOverDiscoveredOnes(t *testing.T) {
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	book.SetDiscovered("kube", []config.Route{route("kube/games/survival", "survival.example.net")})
	if err := book.Add(route("survival", "survival.example.net")); err != nil {
		t.Fatal(err)
	}
	if got, want := fake.labels(), []string{"lobby", "survival"}; !slices.Equal(got, want) {
		t.Errorf("the relay serves %v, want %v", got, want)
	}
	if e, _ := book.Find("kube/games/survival"); !strings.Contains(e.LeftOut, "from the routes API") {
		t.Errorf("the discovered route is left out for %q", e.LeftOut)
	}
	err := book.Add(route("kube/games/survival", "elsewhere.example.net"))
	if refused, ok := err.(*refusedChange); !ok || refused.why != refusedConflict {
		t.Errorf("an API route named as a discovered one: %v, want a conflict", err)
	}
	if err := book.Remove("kube/games/survival"); err == nil || !strings.Contains(err.Error(), "change it where kube finds it") {
		t.Errorf("removing a discovered route through the API: %v", err)
	}
}

// Routes a source finds while the relay starts wait in the book and are served once it runs.
func TestRoutesFoundBeforeTheRelayRunsAreServedWhenItDoes(t *testing.T) {
	file := fileWith(route("lobby", "play.example.net"))
	book := New(zerolog.Nop(), nil, nil)
	routes, err := FileRoutes(file, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	relayCfg := relay.Config{Routes: routes}
	if err := book.Begin(file, &relayCfg); err != nil {
		t.Fatal(err)
	}
	book.SetDiscovered("kube", []config.Route{route("kube/games/mc", "mc.example.net")})
	fake := &fakeRelay{routes: relayCfg.Routes}
	book.Attach(fake)
	if got := fake.labels(); !slices.Equal(got, []string{"lobby", "kube/games/mc"}) {
		t.Errorf("once attached the relay serves %v", got)
	}
}

// An online route from elsewhere takes the load's login key: the file's when it has online
// routes, else one made at the first merge that needs it, and kept by the merges after.
func TestRoutesFromElsewhereShareTheLoadsLoginKey(t *testing.T) {
	online := func(name, host string) config.Route {
		r := route(name, host)
		r.Auth = routes.AuthOnline
		return r
	}
	keyOf := func(fake *fakeRelay, name string) any {
		i := slices.IndexFunc(fake.routes, func(r relay.Route) bool { return r.Label() == name })
		if i < 0 || fake.routes[i].Login == nil || fake.routes[i].Login.Keys == nil {
			t.Fatalf("route %s is not served with a login key: %v", name, fake.labels())
		}
		return fake.routes[i].Login.Keys
	}
	book, fake, _ := testBook(t, fileWith(online("lobby", "lobby.example.net")), nil, nil)
	if err := book.Add(online("api", "api.example.net")); err != nil {
		t.Fatal(err)
	}
	if keyOf(fake, "api") != keyOf(fake, "lobby") {
		t.Error("the API's online route got a key of its own, not the file's")
	}

	book, fake, _ = testBook(t, fileWith(route("lobby", "lobby.example.net")), []config.Route{online("api", "api.example.net")}, nil)
	first := keyOf(fake, "api")
	book.SetDiscovered("docker", []config.Route{online("docker/survival", "survival.example.net")})
	if keyOf(fake, "api") != first || keyOf(fake, "docker/survival") != first {
		t.Error("a merge made another login key")
	}
}
