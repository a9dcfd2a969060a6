package main

import (
	"net/http"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

// Through serve: a labelled container's route, found by discovery.docker, takes a real player
// to its backend, beside the file's route, and GET /routes shows it with its origin.
func TestServeRoutesALabelledContainer(t *testing.T) {
	fileBackend, containerBackend := taggedBackend(t, 'F'), taggedBackend(t, 'D')
	cfg := apiConfig(t, fileBackend, "")
	cfg.Routes[0].Hosts = []string{"*.example.net"} // leaves localhost, play's host, to the container
	cfg.Discovery.Docker = config.DiscoveryDocker{Enabled: true, Endpoint: fakeEngine(t, `[{"Id":"c0ffee","Names":["/survival"],"State":"running",
		"Labels":{"moonbridge.host":"localhost","moonbridge.backend":"`+containerBackend+`"}}]`),
		LabelPrefix: "moonbridge", Resync: config.Default().Discovery.Docker.Resync}
	logs, _ := stoppableServe(t, cfg)
	addr, admin := waitForLog(t, logs, "Listening on")["addr"], "http://"+adminAddr(t, logs)
	var code int
	var origin string
	var served bool
	if !testutil.Within(testutil.WaitBound, func() bool {
		var answer string
		code, answer = apiCall(t, admin, "GET", "/routes/docker/survival", "")
		if code == http.StatusOK {
			origin, served = servedFrom(t, answer)
		}
		return code == http.StatusOK
	}) {
		t.Fatalf("GET /routes/docker/survival: %d; logs:\n%s", code, logs.String())
	}
	if origin != "docker" || !served {
		t.Errorf("the container's route: origin %q, served %v", origin, served)
	}
	if _, tag := play(t, addr); tag != 'D' {
		t.Errorf("the player went to %q, want the container's backend", tag)
	}
}
