package main

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover/docker"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/routes"
)

// An enabled source hands the sink the engine's routes until stopped; a disabled one starts
// nothing.
func TestDockerDiscoveryFeedsTheSink(t *testing.T) {
	testutil.CheckGoroutines(t)
	endpoint := fakeEngine(t, `[{"Id":"c0ffee","Names":["/lobby"],"State":"running","Labels":{"mc.host":"lobby.example.net","mc.port":"25570"},
		"NetworkSettings":{"Networks":{"games":{"IPAddress":"192.0.2.6"}}}}]`)
	sink := fakeSink{source: dockerSource, got: make(chan []config.Route, 4)}
	d := config.Default().Discovery.Docker
	d.Endpoint, d.LabelPrefix = endpoint, "mc"
	defer startDockerDiscovery(d, sink, zerolog.Nop())() // disabled: must hand the sink nothing
	d.Enabled = true
	stop := startDockerDiscovery(d, sink, zerolog.New(zerolog.NewTestWriter(t)))
	defer stop()
	select {
	case got := <-sink.got:
		want := routes.Default("192.0.2.6:25570")
		want.Name, want.Hosts = "docker/lobby", []string{"lobby.example.net"}
		if !reflect.DeepEqual(got, []config.Route{want}) {
			t.Errorf("the sink got %+v, want %+v", got, want)
		}
	case <-time.After(testutil.WaitBound):
		t.Fatal("the sink got no routes")
	}
	select {
	case got := <-sink.got:
		t.Errorf("the sink got a second set %+v: the disabled source ran, or an unchanged set was handed again", got)
	case <-time.After(300 * time.Millisecond):
	}
}

// fakeEngine serves, on a unix socket, a Docker engine whose containers are the JSON list
// containers, and whose events stream stays open and quiet until the client goes.
func fakeEngine(t *testing.T, containers string) docker.Endpoint {
	t.Helper()
	ln, socket := testutil.UnixListener(t)
	engine := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/version":
			w.Write([]byte(`{"ApiVersion":"1.45","MinAPIVersion":"1.24"}`))
		case "/v1.41/containers/json":
			w.Write([]byte(containers))
		case "/v1.41/events":
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	}))
	engine.Listener.Close()
	engine.Listener = ln
	engine.Start()
	t.Cleanup(engine.Close)
	return docker.Endpoint{Network: "unix", Address: socket}
}
