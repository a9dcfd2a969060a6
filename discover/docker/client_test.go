package docker

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"
)

// A wake's start and stop are POSTs to the container; one with nothing to do (304) is no error,
// a missing container an APIError with the engine's message.
func TestContainerStartsAndStops(t *testing.T) {
	e := newFakeEngine(t)
	e.put(stopped(running("id-s", "sleepy", "games", "192.0.2.60", map[string]string{"moonbridge.host": "s.example.net"})))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := Container{Endpoint: e.endpoint, ID: "id-s"}
	for _, step := range []func(context.Context) error{c.Start, c.Start, c.Stop, c.Stop} {
		if err := step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var posts []string
	for _, call := range e.called() {
		if call[:4] == "POST" {
			posts = append(posts, call)
		}
	}
	want := []string{"POST /v1.41/containers/id-s/start", "POST /v1.41/containers/id-s/start", "POST /v1.41/containers/id-s/stop", "POST /v1.41/containers/id-s/stop"}
	if !slices.Equal(posts, want) {
		t.Errorf("calls %q, want %q", posts, want)
	}
	err := Container{Endpoint: e.endpoint, ID: "gone"}.Start(ctx)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound || apiErr.Message != "No such container: gone" {
		t.Errorf("starting a missing container: %v, want a 404 APIError with the engine's message", err)
	}
}

// An engine that refuses the pinned version (Docker 29's oldest is 1.44) is asked in its oldest.
func TestClientAsksInTheEnginesOldestWhenNewer(t *testing.T) {
	e := newFakeEngine(t)
	e.oldest = "1.44"
	e.put(running("id-a", "a", "games", "192.0.2.61", map[string]string{"moonbridge.host": "a.example.net"}))
	if err := (Container{Endpoint: e.endpoint, ID: "id-a"}).Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.called(); !slices.Equal(got, []string{"GET /version", "POST /v1.44/containers/id-a/stop"}) {
		t.Errorf("calls %q", got)
	}
}

func TestChooseVersion(t *testing.T) {
	for _, c := range []struct{ oldest, newest, want string }{
		{"1.24", "1.47", "1.41"}, {"1.44", "1.51", "1.44"}, {"1.12", "1.40", "1.40"}, {"", "", "1.41"}, {"x", "1.43", "1.41"},
	} {
		if got := chooseVersion(c.oldest, c.newest); got != c.want {
			t.Errorf("oldest %q newest %q: got %s, want %s", c.oldest, c.newest, got, c.want)
		}
	}
}

// A refused listing is an APIError; the source keeps its routes and tries again.
func TestRefusedListingKeepsTheRoutes(t *testing.T) {
	e := newFakeEngine(t)
	e.put(running("id-a", "a", "games", "192.0.2.62", map[string]string{"moonbridge.host": "a.example.net"}))
	next, log := watch(t, e.endpoint, 20*time.Millisecond)
	wantRoutes(t, next(), route("a", "192.0.2.62:25565", "a.example.net"))
	e.mu.Lock()
	e.refuse["/v1.41/containers/json"] = http.StatusInternalServerError
	e.mu.Unlock()
	waitForLog(t, log, "refused by the test")
	e.mu.Lock()
	delete(e.refuse, "/v1.41/containers/json")
	e.mu.Unlock()
	e.put(running("id-b", "b", "games", "192.0.2.63", map[string]string{"moonbridge.host": "b.example.net"}))
	wantRoutes(t, next(), route("a", "192.0.2.62:25565", "a.example.net"), route("b", "192.0.2.63:25565", "b.example.net"))
}

func TestParseEndpoint(t *testing.T) {
	for text, want := range map[string]Endpoint{
		"unix:///var/run/docker.sock": {"unix", "/var/run/docker.sock"},
		"tcp://127.0.0.1:2375":        {"tcp", "127.0.0.1:2375"},
		"tcp://[::1]:2375":            {"tcp", "[::1]:2375"},
	} {
		got, err := ParseEndpoint(text)
		if err != nil || got != want || got.String() != text {
			t.Errorf("%q: got %+v (%s), %v", text, got, got, err)
		}
	}
	for _, text := range []string{"", "unix://", "/var/run/docker.sock", "tcp://host", "tcp://:2375", "http://127.0.0.1:2375"} {
		var e Endpoint
		var epErr *EndpointError
		if err := e.UnmarshalText([]byte(text)); !errors.As(err, &epErr) {
			t.Errorf("%q: got %v, want an EndpointError", text, err)
		}
	}
}
