package docker

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/routes"
)

// watch runs a Source on the engine until the test ends; next is the next set it reports, and log is
// what it logged.
func watch(t *testing.T, engine Endpoint, resync time.Duration) (next func() []routes.Route, log *testutil.SyncBuffer) {
	t.Helper()
	testutil.CheckGoroutines(t)
	log = &testutil.SyncBuffer{}
	updates := make(chan []routes.Route, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	client := NewClient(engine)
	src := Source{Client: client, Prefix: "moonbridge", Resync: resync, Log: zerolog.New(log)}
	go func() { done <- src.Run(ctx, func(r []routes.Route) { updates <- r }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v after its context ended", err)
		}
		client.Close()
	})
	return func() []routes.Route {
		t.Helper()
		select {
		case r := <-updates:
			return r
		case <-time.After(testutil.WaitBound):
			t.Fatal("no update from the source")
			return nil
		}
	}, log
}

// route is the route a container named name finds: to backend for hosts, every other key at
// its default.
func route(name, backend string, hosts ...string) routes.Route {
	r := routes.Default(backend)
	r.Name, r.Hosts = "docker/"+name, hosts
	return r
}

func wantRoutes(t *testing.T, got []routes.Route, want ...routes.Route) {
	t.Helper()
	if want == nil {
		want = []routes.Route{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("routes:\n got %+v\nwant %+v", got, want)
	}
}

// Running labelled containers are routes; starting, stopping, removing and recreating them with
// other labels (Docker has no relabel: compose recreates the container) change the set.
func TestRoutesFollowContainers(t *testing.T) {
	e := newFakeEngine(t)
	survival := running("id-s", "survival", "games", "192.0.2.10", map[string]string{"moonbridge.host": "survival.example.net, *.survival.example.net"})
	e.put(survival)
	e.put(running("id-x", "unlabelled", "games", "192.0.2.99", map[string]string{"other": "x"}))
	next, _ := watch(t, e.endpoint, time.Hour)
	wantRoutes(t, next(), route("survival", "192.0.2.10:25565", "survival.example.net", "*.survival.example.net"))

	e.put(running("id-c", "creative", "games", "192.0.2.11", map[string]string{"moonbridge.host": "creative.example.net", "moonbridge.port": "25570"}))
	e.emit("start", "id-c")
	creative := route("creative", "192.0.2.11:25570", "creative.example.net")
	wantRoutes(t, next(), creative, route("survival", "192.0.2.10:25565", "survival.example.net", "*.survival.example.net"))

	e.put(stopped(survival))
	e.emit("die", "id-s")
	wantRoutes(t, next(), creative)

	// Recreated with another host: destroy, create, start.
	e.remove("id-c")
	e.emit("destroy", "id-c")
	e.put(running("id-c2", "creative", "games", "192.0.2.12", map[string]string{"moonbridge.host": "build.example.net"}))
	e.emit("create", "id-c2")
	e.emit("start", "id-c2")
	got := next()
	if len(got) == 0 { // the destroy's listing may come before the create
		got = next()
	}
	wantRoutes(t, got, route("creative", "192.0.2.12:25565", "build.example.net"))

	e.remove("id-c2")
	e.emit("remove", "id-c2") // podman's name for destroy
	wantRoutes(t, next())
}

// Events that change no route report nothing; the periodic listing finds a change the events
// missed.
func TestResyncFindsWhatNoEventSaid(t *testing.T) {
	e := newFakeEngine(t)
	next, _ := watch(t, e.endpoint, 50*time.Millisecond)
	wantRoutes(t, next())
	e.put(running("id-a", "a", "games", "192.0.2.20", map[string]string{"moonbridge.host": "a.example.net"}))
	wantRoutes(t, next(), route("a", "192.0.2.20:25565", "a.example.net"))
	e.emit("exec_start", "id-a")
	lists := strings.Count(strings.Join(e.called(), "\n"), "/containers/json")
	testutil.WaitFor(t, "two more listings", func() bool { return strings.Count(strings.Join(e.called(), "\n"), "/containers/json") >= lists+2 })
	e.put(running("id-b", "b", "games", "192.0.2.21", map[string]string{"moonbridge.host": "b.example.net"}))
	wantRoutes(t, next(), route("a", "192.0.2.20:25565", "a.example.net"), route("b", "192.0.2.21:25565", "b.example.net"))
}

// A dropped events stream is opened again (after a second's backoff) and the containers listed
// again: what changed while it was down is reported; the routes stay meanwhile.
func TestDroppedStreamResyncs(t *testing.T) {
	e := newFakeEngine(t)
	e.put(running("id-a", "a", "games", "192.0.2.30", map[string]string{"moonbridge.host": "a.example.net"}))
	next, log := watch(t, e.endpoint, time.Hour)
	wantRoutes(t, next(), route("a", "192.0.2.30:25565", "a.example.net"))
	testutil.WaitFor(t, "the events stream", func() bool { return e.openStreams() == 1 })
	e.dropStreams()
	e.put(stopped(running("id-a", "a", "games", "192.0.2.30", map[string]string{"moonbridge.host": "a.example.net"})))
	wantRoutes(t, next())
	if !strings.Contains(log.String(), "lost the engine") {
		t.Errorf("the drop was not logged:\n%s", log)
	}
	testutil.WaitFor(t, "the stream to be opened again", func() bool { return e.openStreams() == 1 })
	e.put(running("id-a", "a", "games", "192.0.2.31", map[string]string{"moonbridge.host": "a.example.net"}))
	e.emit("start", "id-a")
	wantRoutes(t, next(), route("a", "192.0.2.31:25565", "a.example.net"))
}

// A container whose labels do not parse is left out with one log line naming it and the label,
// however often the containers are listed again; the others are routes.
func TestBadLabelsLeaveTheContainerOut(t *testing.T) {
	e := newFakeEngine(t)
	twoNets := running("id-n", "twonets", "games", "192.0.2.40", map[string]string{"moonbridge.host": "n.example.net"})
	twoNets.NetworkSettings.Networks["lobby"] = network{IPAddress: "192.0.2.41"}
	for _, c := range []container{
		running("id-p", "badport", "games", "192.0.2.42", map[string]string{"moonbridge.host": "p.example.net", "moonbridge.port": "http"}),
		running("id-h", "nohost", "games", "192.0.2.43", map[string]string{"moonbridge.host": " , "}),
		running("id-w", "badwake", "games", "192.0.2.44", map[string]string{"moonbridge.host": "w.example.net", "moonbridge.wake": "sometimes"}),
		twoNets,
		running("id-ok", "good", "games", "192.0.2.45", map[string]string{"moonbridge.host": "good.example.net"}),
	} {
		e.put(c)
	}
	next, log := watch(t, e.endpoint, 20*time.Millisecond)
	wantRoutes(t, next(), route("good", "192.0.2.45:25565", "good.example.net"))
	lists := strings.Count(strings.Join(e.called(), "\n"), "/containers/json")
	testutil.WaitFor(t, "more listings", func() bool { return strings.Count(strings.Join(e.called(), "\n"), "/containers/json") >= lists+3 })
	for name, label := range map[string]string{"badport": "moonbridge.port", "nohost": "moonbridge.host", "badwake": "moonbridge.wake", "twonets": "moonbridge.network"} {
		want := fmt.Sprintf("container %s: label %s:", name, label)
		if n := strings.Count(log.String(), want); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", want, n, log)
		}
	}
}

// A waking container is a route while stopped, dialled by its name on its user-defined network
// or by its backend label; one on a default network only, without a backend label, is not.
func TestWakingContainersStayRoutes(t *testing.T) {
	e := newFakeEngine(t)
	e.put(stopped(running("id-s", "sleepy", "games", "192.0.2.50", map[string]string{"moonbridge.host": "s.example.net", "moonbridge.wake": "true", "moonbridge.stop_after_idle": "10m"})))
	e.put(stopped(running("id-p", "published", "bridge", "192.0.2.51", map[string]string{"moonbridge.host": "p.example.net", "moonbridge.wake": "true", "moonbridge.backend": "127.0.0.1:25566"})))
	e.put(stopped(running("id-d", "default", "bridge", "192.0.2.52", map[string]string{"moonbridge.host": "d.example.net", "moonbridge.wake": "true"})))
	next, log := watch(t, e.endpoint, time.Hour)
	published := route("published", "127.0.0.1:25566", "p.example.net")
	published.Wake.Container = "id-p"
	sleepy := route("sleepy", "sleepy:25565", "s.example.net")
	sleepy.Wake.Container, sleepy.Wake.StopAfterIdle = "id-s", 10*time.Minute
	wantRoutes(t, next(), published, sleepy)
	if !strings.Contains(log.String(), "container default: label moonbridge.backend: is needed") {
		t.Errorf("the waking container on the default network was not logged:\n%s", log)
	}
	// Started, it keeps the same route: no update.
	e.put(running("id-s", "sleepy", "games", "192.0.2.50", map[string]string{"moonbridge.host": "s.example.net", "moonbridge.wake": "true", "moonbridge.stop_after_idle": "10m"}))
	e.emit("start", "id-s")
	e.remove("id-p")
	e.emit("destroy", "id-p")
	wantRoutes(t, next(), sleepy)
}

func TestRunRefusesIncompleteSettings(t *testing.T) {
	for _, s := range []Source{{Prefix: "moonbridge", Resync: time.Minute}, {Client: &Client{}, Resync: time.Minute}, {Client: &Client{}, Prefix: "moonbridge"}} {
		if err := s.Run(context.Background(), func([]routes.Route) {}); err != ErrSettings {
			t.Errorf("%+v: got %v, want ErrSettings", s, err)
		}
	}
}

func waitForLog(t *testing.T, log *testutil.SyncBuffer, text string) {
	t.Helper()
	testutil.WaitFor(t, "the log line "+text, func() bool { return strings.Contains(log.String(), text) })
}

// Containers with the same route label (replicas) are one route, their addresses its backends
// in the order of their names, with the balance they name; one whose hosts, balance or countries differ,
// or that wakes, is left out with a log line and the others still share the route.
func TestReplicasShareARoute(t *testing.T) {
	e := newFakeEngine(t)
	lobby := func(id, name, ip string, extra ...string) container {
		l := map[string]string{"moonbridge.host": "lobby.example.net", "moonbridge.route": "lobby", "moonbridge.balance": "round-robin"}
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return running(id, name, "games", ip, l)
	}
	e.put(lobby("id-2", "lobby-2", "192.0.2.22"))
	e.put(lobby("id-1", "lobby-1", "192.0.2.21"))
	next, log := watch(t, e.endpoint, time.Hour)
	want := route("lobby", "192.0.2.21:25565", "lobby.example.net")
	want.Backends, want.Balance = append(want.Backends, "192.0.2.22:25565"), routes.BalanceRoundRobin
	wantRoutes(t, next(), want)

	e.put(lobby("id-3", "lobby-3", "192.0.2.23", "moonbridge.host", "other.example.net"))
	e.put(lobby("id-4", "lobby-4", "192.0.2.24", "moonbridge.balance", "random"))
	e.put(lobby("id-5", "lobby-5", "192.0.2.25", "moonbridge.wake", "true", "moonbridge.backend", "lobby-5:25565"))
	e.put(lobby("id-7", "lobby-7", "192.0.2.27", "moonbridge.countries.deny", "CN"))
	e.put(lobby("id-6", "lobby-6", "192.0.2.26"))
	e.emit("start", "id-6")
	want.Backends = append(want.Backends, "192.0.2.26:25565")
	wantRoutes(t, next(), want)
	for _, reason := range []string{
		"container lobby-3: label moonbridge.host: differs from the hosts of route",
		"container lobby-4: label moonbridge.balance: differs from the balance of route",
		"container lobby-7: label moonbridge.countries.deny: differs from the denied countries of route",
		"container lobby-5: label moonbridge.route: \\\"docker/lobby\\\" is another container's route, and a waking container needs a route of its own",
	} {
		if !strings.Contains(log.String(), reason) {
			t.Errorf("no log line %q in\n%s", reason, log.String())
		}
	}

	e.put(stopped(lobby("id-1", "lobby-1", "192.0.2.21")))
	e.emit("die", "id-1")
	want.Backends = []string{"192.0.2.22:25565", "192.0.2.26:25565"}
	wantRoutes(t, next(), want)
}
