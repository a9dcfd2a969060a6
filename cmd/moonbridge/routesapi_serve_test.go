package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// apiConfig serves Minecraft on 127.0.0.1:0, every host to fileBackend, with the routes API
// on the admin endpoint, its token testToken, its routes kept in stateFile, and localhost (the
// host play names) the API's to take from the file's "*".
func apiConfig(t *testing.T, fileBackend, stateFile string) config.Config {
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, []byte(testToken))
	cfg := config.Default()
	cfg.Listeners = []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft}}}
	cfg.Routes[0].Backends = []string{fileBackend}
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.Admin.RoutesAPI.Enabled, cfg.Admin.RoutesAPI.TokenFile, cfg.Admin.RoutesAPI.StateFile = true, tokenFile, stateFile
	cfg.Admin.RoutesAPI.Hosts = []string{"localhost"}
	return cfg
}

// Through serve: a route added over the API takes real players to its backend at once, is
// written to the state file, and is read from it at the next start, which serves it again.
func TestRoutesAPIRouteServesAndSurvivesARestart(t *testing.T) {
	fileBackend, apiBackend := taggedBackend(t, 'F'), taggedBackend(t, 'A')
	state := filepath.Join(t.TempDir(), "routes.yml")
	cfg := apiConfig(t, fileBackend, state)
	logs, stop := stoppableServe(t, cfg)
	addr, admin := waitForLog(t, logs, "Listening on")["addr"], "http://"+adminAddr(t, logs)
	if _, tag := play(t, addr); tag != 'F' {
		t.Fatalf("before the API route the player went to %q", tag)
	}
	body := `{"name": "local", "hosts": ["localhost"], "backends": ["` + apiBackend + `"]}` // play's host
	if code, answer := apiCall(t, admin, "POST", "/routes", body); code != http.StatusCreated {
		t.Fatalf("POST /routes: %d %s", code, answer)
	}
	if _, tag := play(t, addr); tag != 'A' {
		t.Errorf("after POST /routes the player went to %q, want the API route's backend", tag)
	}
	if line := findLog(logs.String(), "routes API: add"); line["route"] != "local" || !strings.HasPrefix(line["from"], "127.0.0.1:") {
		t.Errorf("the change's log line: %v", line)
	}
	raw, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if stored, err := config.ParseRoutes(raw); err != nil || len(stored) != 1 || stored[0].Backends[0] != apiBackend {
		t.Errorf("the state file holds %+v, %v:\n%s", stored, err, raw)
	}
	stop()

	logs, _ = stoppableServe(t, cfg)
	addr, admin = waitForLog(t, logs, "Listening on")["addr"], "http://"+adminAddr(t, logs)
	if line := waitForLog(t, logs, "Routes API on /routes"); line["state_file"] != state {
		t.Errorf("the start line: %v", line)
	}
	if _, tag := play(t, addr); tag != 'A' {
		t.Errorf("after a restart the API route's player went to %q", tag)
	}
	code, answer := apiCall(t, admin, "GET", "/routes/local", "")
	if origin, served := servedFrom(t, answer); code != http.StatusOK || origin != config.OriginAPI || !served {
		t.Errorf("GET /routes/local after a restart: %d %s", code, answer)
	}
}

// With routes_api off (the default) the admin endpoint has no /routes; without a state file the
// start says the API's routes do not outlive the process.
func TestRoutesAPIOffIsNotServed(t *testing.T) {
	cfg := apiConfig(t, taggedBackend(t, 'F'), "")
	cfg.Admin.RoutesAPI.Enabled = false
	logs, _ := stoppableServe(t, cfg)
	admin := "http://" + adminAddr(t, logs)
	for _, method := range []string{"GET", "POST"} {
		if code, _ := apiCall(t, admin, method, "/routes", `{"hosts": ["a"], "backends": ["b:1"]}`); code != http.StatusNotFound {
			t.Errorf("%s /routes with the API off: %d, want 404", method, code)
		}
	}

	cfg.Admin.RoutesAPI.Enabled = true
	logs, _ = stoppableServe(t, cfg)
	if line := waitForLog(t, logs, "Routes API on /routes without"); line["level"] != "warn" {
		t.Errorf("the start line without a state file: %v", line)
	}
}
