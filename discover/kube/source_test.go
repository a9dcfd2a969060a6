package kube

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/routes"
)

// start runs a source with s until the test ends; its updates arrive on the channel.
func start(t *testing.T, s Settings) (<-chan []routes.Route, *testutil.SyncBuffer) {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	src, err := New(s, zerolog.New(logs))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	updates := make(chan []routes.Route, 64)
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx, func(r []routes.Route) { updates <- r }) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run returned %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
	return updates, logs
}

// next is the source's next update.
func next(t *testing.T, updates <-chan []routes.Route) []routes.Route {
	t.Helper()
	select {
	case r := <-updates:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no update")
		return nil
	}
}

func expect(t *testing.T, updates <-chan []routes.Route, want ...routes.Route) {
	t.Helper()
	if got := next(t, updates); !(len(got) == 0 && len(want) == 0 || reflect.DeepEqual(got, want)) {
		t.Fatalf("routes\n got %+v\nwant %+v", got, want)
	}
}

// eventually reads updates until one is want.
func eventually(t *testing.T, updates <-chan []routes.Route, want ...routes.Route) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	var last []routes.Route
	for {
		select {
		case last = <-updates:
			if reflect.DeepEqual(last, want) {
				return
			}
		case <-deadline:
			t.Fatalf("routes\n last %+v\n want %+v", last, want)
		}
	}
}

// route is a Service's route to backend for hosts, every other key at its default.
func route(name, backend string, hosts ...string) routes.Route {
	return routeTo(name, hosts, backend)
}

// routeTo is a Service's route for hosts to backends, every other key at its default.
func routeTo(name string, hosts []string, backends ...string) routes.Route {
	r := routes.Default(backends...)
	r.Name, r.Hosts = name, hosts
	return r
}

func hostAnnotation(hosts string) map[string]string {
	return map[string]string{"moonbridge.io/host": hosts}
}

// Annotated Services become routes to NAME.NAMESPACE.svc on the chosen port; the others do not;
// the list and the watch carry the bearer token and the watch starts at the list's version.
func TestServicesBecomeRoutes(t *testing.T) {
	api := newFakeAPI(t)
	api.setList("services", "100",
		serviceObject("games", "survival", "90", hostAnnotation("survival.example.net, *.Survival.example.net"), "query:25566", "minecraft:25565"),
		serviceObject("games", "creative", "91", map[string]string{"moonbridge.io/host": "creative.example.net", "moonbridge.io/port": "25570"}, "a:25569", "b:25570"),
		serviceObject("lobby", "hub", "92", hostAnnotation("hub.example.net"), "voice:24454/UDP", "game:25565"),
		serviceObject("games", "website", "93", map[string]string{"other.io/host": "www.example.net"}, "http:80"),
	)
	updates, _ := start(t, api.settings())
	expect(t, updates,
		route("kube/games/creative", "creative.games.svc:25570", "creative.example.net"),
		route("kube/games/survival", "survival.games.svc:25565", "survival.example.net", "*.survival.example.net"),
		route("kube/lobby/hub", "hub.lobby.svc:25565", "hub.example.net"),
	)
	w := api.nextWatch("services")
	for k, v := range map[string]string{"watch": "1", "resourceVersion": "100", "allowWatchBookmarks": "true"} {
		if w.query[k] != v {
			t.Errorf("watch %s=%q, want %q", k, w.query[k], v)
		}
	}
	if w.auth != "Bearer token-1" {
		t.Errorf("watch Authorization %q", w.auth)
	}
	list := api.requests("services")[0]
	if list.path != "/api/v1/services" || list.auth != "Bearer token-1" || list.query.Get("limit") != "500" {
		t.Errorf("list request %+v", list)
	}
}

// The countries annotations set the route's lists, upper-cased; a Service without them has
// empty lists (every country), as the file's default.
func TestCountryAnnotations(t *testing.T) {
	api := newFakeAPI(t)
	api.setList("services", "10", serviceObject("games", "eu", "1", map[string]string{"moonbridge.io/host": "eu.example.net",
		"moonbridge.io/countries-allow": "nl, be,DE", "moonbridge.io/countries-deny": "t1"}, "minecraft:25565"))
	updates, _ := start(t, api.settings())
	want := route("kube/games/eu", "eu.games.svc:25565", "eu.example.net")
	want.Countries = routes.Countries{Allow: []string{"NL", "BE", "DE"}, Deny: []string{"T1"}}
	expect(t, updates, want)
}

// startWithSurvival runs a source on a list of one annotated Service, games/survival at
// resourceVersion 10, and returns once its route arrived.
func startWithSurvival(t *testing.T) (*fakeAPI, <-chan []routes.Route, *testutil.SyncBuffer) {
	t.Helper()
	api := newFakeAPI(t)
	api.setList("services", "10", serviceObject("games", "survival", "9", hostAnnotation("survival.example.net"), "minecraft:25565"))
	updates, logs := start(t, api.settings())
	expect(t, updates, route("kube/games/survival", "survival.games.svc:25565", "survival.example.net"))
	return api, updates, logs
}

// ADDED, MODIFIED and DELETED change the set; a change the routes do not see sends no update;
// removing the annotation removes the route.
func TestWatchEventsChangeRoutes(t *testing.T) {
	api, updates, _ := startWithSurvival(t)
	w := api.nextWatch("services")

	w.send("MODIFIED", serviceObject("games", "survival", "11", hostAnnotation("mc.example.net,survival.example.net"), "minecraft:25565"))
	expect(t, updates, route("kube/games/survival", "survival.games.svc:25565", "mc.example.net", "survival.example.net"))

	w.send("ADDED", serviceObject("games", "creative", "12", hostAnnotation("creative.example.net"), "minecraft:25565"))
	expect(t, updates,
		route("kube/games/creative", "creative.games.svc:25565", "creative.example.net"),
		route("kube/games/survival", "survival.games.svc:25565", "mc.example.net", "survival.example.net"))

	// A new label, a new port beside the route's: the same routes, no update. The update
	// after it is the DELETED one's.
	w.send("MODIFIED", serviceObject("games", "creative", "13", hostAnnotation("creative.example.net"), "minecraft:25565", "rcon:25575"))
	w.send("DELETED", serviceObject("games", "survival", "14", hostAnnotation("mc.example.net,survival.example.net"), "minecraft:25565"))
	expect(t, updates, route("kube/games/creative", "creative.games.svc:25565", "creative.example.net"))

	w.send("MODIFIED", serviceObject("games", "creative", "15", map[string]string{}, "minecraft:25565"))
	expect(t, updates)
}

// A Service whose annotations do not parse is left out with a log line naming it and the
// annotation; the others stay; fixing it brings its route.
func TestBadAnnotationLeavesServiceOut(t *testing.T) {
	api := newFakeAPI(t)
	api.setList("services", "10",
		serviceObject("games", "badport", "1", map[string]string{"moonbridge.io/host": "a.example.net", "moonbridge.io/port": "rcon"}, "minecraft:25565"),
		serviceObject("games", "badmode", "2", map[string]string{"moonbridge.io/host": "b.example.net", "moonbridge.io/backends": "pods"}, "minecraft:25565"),
		serviceObject("games", "badhost", "3", hostAnnotation("c.example.net:25565"), "minecraft:25565"),
		serviceObject("games", "udp", "4", hostAnnotation("d.example.net"), "voice:24454/UDP"),
		serviceObject("games", "badcountry", "6", map[string]string{"moonbridge.io/host": "f.example.net", "moonbridge.io/countries-deny": "CN,Tor"}, "minecraft:25565"),
		serviceObject("games", "good", "5", hostAnnotation("e.example.net"), "minecraft:25565"),
	)
	updates, logs := start(t, api.settings())
	expect(t, updates, route("kube/games/good", "good.games.svc:25565", "e.example.net"))
	for _, want := range []string{
		`"service":"games/badport"`, `moonbridge.io/port=\"rcon\"`,
		`"service":"games/badmode"`, `moonbridge.io/backends=\"pods\"`,
		`"service":"games/badhost"`, `"service":"games/udp"`, "no TCP port",
		`"service":"games/badcountry"`, `moonbridge.io/countries-deny=\"CN,Tor\"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	}
	w := api.nextWatch("services")
	w.send("MODIFIED", serviceObject("games", "badport", "11", map[string]string{"moonbridge.io/host": "a.example.net", "moonbridge.io/port": "minecraft"}, "minecraft:25565"))
	expect(t, updates,
		route("kube/games/badport", "badport.games.svc:25565", "a.example.net"),
		route("kube/games/good", "good.games.svc:25565", "e.example.net"))
}

// An ERROR event with 410 (the version is too old) and a watch answered 410 both list again;
// what the new list says replaces what the source had (a Service deleted meanwhile goes).
func TestGoneRelists(t *testing.T) {
	api, updates, _ := startWithSurvival(t)

	api.setList("services", "50", serviceObject("games", "creative", "40", hostAnnotation("creative.example.net"), "minecraft:25565"))
	api.nextWatch("services").send("ERROR", statusObject(http.StatusGone, "Expired", "too old resource version: 10 (45)"))
	expect(t, updates, route("kube/games/creative", "creative.games.svc:25565", "creative.example.net"))
	w := api.nextWatch("services")
	if w.query["resourceVersion"] != "50" {
		t.Errorf("after the relist the watch starts at %q, want 50", w.query["resourceVersion"])
	}

	api.setList("services", "60")
	api.refuseWatch("services", http.StatusGone)
	w.end()
	expect(t, updates)
	if n := api.lists("services"); n != 3 {
		t.Errorf("%d lists, want 3", n)
	}
}

// The end of a stream watches again from the last version seen (a BOOKMARK's too), without a
// list, reading the token file again; an error other than 410 does the same.
func TestStreamEndRewatches(t *testing.T) {
	api, updates, logs := startWithSurvival(t)
	w := api.nextWatch("services")
	w.send("BOOKMARK", bookmark("Service", "42"))
	api.setToken("token-2") // the kubelet rotated it
	w.end()

	w = api.nextWatch("services")
	if w.query["resourceVersion"] != "42" || w.auth != "Bearer token-2" {
		t.Errorf("the watch again: resourceVersion %q, Authorization %q; want 42, Bearer token-2", w.query["resourceVersion"], w.auth)
	}
	w.send("MODIFIED", serviceObject("games", "survival", "43", hostAnnotation("mc.example.net"), "minecraft:25565"))
	expect(t, updates, route("kube/games/survival", "survival.games.svc:25565", "mc.example.net"))

	api.refuseWatch("services", http.StatusForbidden)
	w.end()
	if w = api.nextWatch("services"); w.query["resourceVersion"] != "43" {
		t.Errorf("after a 403 the watch starts at %q, want 43", w.query["resourceVersion"])
	}
	if n := api.lists("services"); n != 1 {
		t.Errorf("%d lists, want 1", n)
	}
	if !strings.Contains(logs.String(), "Forbidden") {
		t.Errorf("the 403 is not in the log:\n%s", logs)
	}
}

func ready(b bool) *bool { return &b }

// backends: endpoints routes to the ready endpoints of the Service's EndpointSlices on the port
// its port targets; with none ready the route keeps the Service's name.
func TestEndpointSlicesGiveReadyEndpoints(t *testing.T) {
	api := newFakeAPI(t)
	api.setList("services", "10", serviceObject("games", "survival", "9",
		map[string]string{"moonbridge.io/host": "survival.example.net", "moonbridge.io/backends": "endpoints"}, "query:25566", "minecraft:25565"))
	api.setList("endpointslices", "20",
		sliceObject("games", "survival-abc", "survival", "11", "minecraft", 30000,
			sliceEndpoint{"10.0.0.2", ready(true)}, sliceEndpoint{"10.0.0.3", ready(false)}, sliceEndpoint{"10.0.0.4", nil}),
		sliceObject("games", "survival-def", "survival", "12", "minecraft", 30000, sliceEndpoint{"10.0.0.1", ready(true)}),
		sliceObject("games", "survival-query", "survival", "13", "query", 30001, sliceEndpoint{"10.0.0.9", ready(true)}),
		sliceObject("games", "creative-abc", "creative", "14", "minecraft", 30000, sliceEndpoint{"10.0.0.8", ready(true)}),
	)
	updates, _ := start(t, api.settings())
	eventually(t, updates, routeTo("kube/games/survival", []string{"survival.example.net"}, "10.0.0.1:30000", "10.0.0.2:30000", "10.0.0.4:30000"))
	if q := api.requests("endpointslices")[0]; q.path != "/apis/discovery.k8s.io/v1/endpointslices" || q.query.Get("labelSelector") != serviceNameLabel+" in (survival)" {
		t.Errorf("EndpointSlice list %+v", q)
	}

	w := api.nextWatch("endpointslices")
	w.send("DELETED", sliceObject("games", "survival-def", "survival", "21", "minecraft", 30000, sliceEndpoint{"10.0.0.1", ready(true)}))
	expect(t, updates, routeTo("kube/games/survival", []string{"survival.example.net"}, "10.0.0.2:30000", "10.0.0.4:30000"))
	w.send("MODIFIED", sliceObject("games", "survival-abc", "survival", "22", "minecraft", 30000,
		sliceEndpoint{"10.0.0.2", ready(false)}, sliceEndpoint{"10.0.0.4", ready(false)}))
	expect(t, updates, route("kube/games/survival", "survival.games.svc:25565", "survival.example.net"))
}

// One namespace is watched under its own path, and a list of several pages is read whole.
func TestNamespaceAndPages(t *testing.T) {
	api := newFakeAPI(t)
	api.setPageSize("services", 2)
	api.setList("services", "10",
		serviceObject("games", "a", "1", hostAnnotation("a.example.net"), "minecraft:25565"),
		serviceObject("games", "b", "2", hostAnnotation("b.example.net"), "minecraft:25565"),
		serviceObject("games", "c", "3", hostAnnotation("c.example.net"), "minecraft:25565"),
	)
	s := api.settings()
	s.Namespace = "games"
	updates, _ := start(t, s)
	expect(t, updates,
		route("kube/games/a", "a.games.svc:25565", "a.example.net"),
		route("kube/games/b", "b.games.svc:25565", "b.example.net"),
		route("kube/games/c", "c.games.svc:25565", "c.example.net"))
	reqs := api.requests("services")
	if len(reqs) < 2 || reqs[0].path != "/api/v1/namespaces/games/services" || reqs[1].query.Get("continue") != "2" {
		t.Errorf("requests %+v: want two pages of /api/v1/namespaces/games/services", reqs)
	}
}

func TestInCluster(t *testing.T) {
	env := map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
	api, err := InCluster(func(k string) string { return env[k] })
	if err != nil || api != (API{URL: "https://[fd00::1]:443", TokenFile: ServiceAccountToken, CAFile: ServiceAccountCA}) {
		t.Errorf("got %+v, %v", api, err)
	}
	if _, err := InCluster(func(string) string { return "" }); !errors.Is(err, ErrNotInCluster) {
		t.Errorf("outside a pod: %v", err)
	}
}

// New refuses what no request could use: a URL that is not http(s), a CA file without a
// certificate.
func TestNewRefusesBadAPI(t *testing.T) {
	api := newFakeAPI(t)
	for name, a := range map[string]API{
		"scheme":     {URL: "ftp://127.0.0.1"},
		"no host":    {URL: "https://"},
		"missing CA": {URL: api.srv.URL, CAFile: api.caFile + ".absent"},
		"not a CA":   {URL: api.srv.URL, CAFile: api.token},
	} {
		if _, err := New(Settings{API: a}, zerolog.Nop()); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Two Services that claim one host: the older one (creationTimestamp) comes first, so it is
// the one served, whatever the names' order.
func TestOlderServiceComesFirst(t *testing.T) {
	api := newFakeAPI(t)
	created := func(obj map[string]any, at string) map[string]any {
		obj["metadata"].(map[string]any)["creationTimestamp"] = at
		return obj
	}
	api.setList("services", "100",
		created(serviceObject("a", "newer", "90", hostAnnotation("play.example.net"), "minecraft:25565"), "2026-12-01T10:00:00Z"),
		created(serviceObject("z", "older", "91", hostAnnotation("play.example.net"), "minecraft:25565"), "2026-01-01T10:00:00Z"),
	)
	updates, _ := start(t, api.settings())
	got := next(t, updates)
	if len(got) != 2 || got[0].Name != "kube/z/older" || got[1].Name != "kube/a/newer" {
		t.Fatalf("routes %+v, want kube/z/older first", got)
	}
}
