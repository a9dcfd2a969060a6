package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/routes"
)

// A SIGHUP rereads only the file: the API's routes and the discovered ones stay and are served
// beside the file's new routes; an API route whose host the file now has is left out, not
// dropped, and is served again when the file gives the host back.
func TestHangupKeepsAPIAndDiscoveredRoutes(t *testing.T) {
	fileBackend, apiBackend := taggedBackend(t, 'F'), taggedBackend(t, 'A')
	cfg := localConfig()
	cfg.Routes[0].Backends = []string{fileBackend}
	cfg.Admin.RoutesAPI.Hosts = []string{"localhost"}      // the file's "*" serves it too
	cfg.Discovery.Docker.Hosts = []string{"*.example.net"} // and x.example.net
	next := cfg
	r, _ := startReloader(t, cfg, func() (config.Config, error) { return next, nil })
	addr := r.srv.Addrs()[0].String()
	api := routes.Default(apiBackend)
	api.Name, api.Hosts = "local", []string{"localhost"} // play's handshake host
	if err := r.book.Add(api); err != nil {
		t.Fatal(err)
	}
	discovered := routes.Default("127.0.0.1:1")
	discovered.Name, discovered.Hosts = "docker/x", []string{"x.example.net"}
	r.book.SetDiscovered("docker", []config.Route{discovered})
	if _, tag := play(t, addr); tag != 'A' {
		t.Fatalf("before the SIGHUP the API route's player went to %q", tag)
	}

	next.Limits.MaxConnections = 500
	r.reload()
	if _, tag := play(t, addr); tag != 'A' {
		t.Errorf("after a SIGHUP the API route's player went to %q", tag)
	}
	served := 0
	for _, e := range r.book.List() {
		if e.Origin != config.OriginFile && e.LeftOut == "" {
			served++
		}
	}
	if served != 2 {
		t.Errorf("after a SIGHUP %v API and discovered routes are served, want 2", served)
	}

	mine := routes.Default(fileBackend)
	mine.Name, mine.Hosts = "mine", []string{"localhost"}
	next.Routes = append(slices.Clone(cfg.Routes), mine)
	r.reload()
	if _, tag := play(t, addr); tag != 'F' {
		t.Errorf("the file's new route for the API route's host: the player went to %q", tag)
	}
	if e, ok := r.book.Find("local"); !ok || e.Origin != config.OriginAPI || !strings.Contains(e.LeftOut, "from the config file") {
		t.Errorf("the API route after the file took its host: %+v, %v", e, ok)
	}
	next.Routes = cfg.Routes
	r.reload()
	if _, tag := play(t, addr); tag != 'A' {
		t.Errorf("with the host free again the API route's player went to %q", tag)
	}
	if ok, failed := reloadCount(t, r, "ok"), reloadCount(t, r, "failed"); ok != 3 || failed != 0 {
		t.Errorf("reloads ok %v, failed %v; want 3 and 0", ok, failed)
	}
}
