package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover/docker"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

// oneContainerEngine serves, on a unix socket, a Docker engine with one running container
// labelled to route localhost to backend, and an events stream that stays open and quiet.
func oneContainerEngine(t *testing.T, backend string) docker.Endpoint {
	t.Helper()
	dir, err := os.MkdirTemp("", "mbengine") // short: a socket's path has 108 bytes at most
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "engine.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	container := map[string]any{"Id": "c0ffee", "Names": []string{"/survival"}, "State": "running",
		"Labels": map[string]string{"moonbridge.host": "localhost", "moonbridge.backend": backend}}
	mux := http.NewServeMux()
	mux.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"ApiVersion": "1.47", "MinAPIVersion": "1.24"})
	})
	mux.HandleFunc("/v1.41/containers/json", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode([]any{container})
	})
	mux.HandleFunc("/v1.41/events", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return docker.Endpoint{Network: "unix", Address: path}
}

// Through serve: a labelled container's route, found by discovery.docker, takes a real player
// to its backend, beside the file's route, and GET /routes shows it with its origin.
func TestServeRoutesALabelledContainer(t *testing.T) {
	fileBackend, containerBackend := taggedBackend(t, 'F'), taggedBackend(t, 'D')
	cfg := apiConfig(t, fileBackend, "")
	cfg.Routes[0].Hosts = []string{"*.example.net"} // leaves localhost, play's host, to the container
	cfg.Discovery.Docker = config.DiscoveryDocker{Enabled: true, Endpoint: oneContainerEngine(t, containerBackend),
		LabelPrefix: "moonbridge", Resync: config.Default().Discovery.Docker.Resync}
	logs, _ := stoppableServe(t, cfg)
	addr, admin := waitForLog(t, logs, "Listening on")["addr"], "http://"+adminAddr(t, logs)
	var code int
	var view routeView
	if !testutil.Within(testutil.WaitBound, func() bool {
		var answer string
		code, answer = apiCall(t, admin, "GET", "/routes/docker/survival", testToken, "")
		if code == http.StatusOK {
			view = decodeView(t, answer)
		}
		return code == http.StatusOK
	}) {
		t.Fatalf("GET /routes/docker/survival: %d; logs:\n%s", code, logs.String())
	}
	if view.Origin != "docker" || !view.Served {
		t.Errorf("the container's route: %+v", view)
	}
	if _, tag := play(t, addr); tag != 'D' {
		t.Errorf("the player went to %q, want the container's backend", tag)
	}
}
