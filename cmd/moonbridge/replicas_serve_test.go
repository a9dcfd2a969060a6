package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/replicas/redistest"
)

// Issue 42, through serve: two instances with replicas on one Redis keep the routes API's
// routes there (not in a state file): a route added over one's API takes players on the other
// within a second, and each says on /metrics that Redis answers.
func TestReplicasServeOneRoutesAPI(t *testing.T) {
	server := redistest.Start(t)
	fileBackend, apiBackend := taggedBackend(t, 'F'), taggedBackend(t, 'A')
	var addrs, admins []string
	for _, id := range []string{"a", "b"} {
		cfg := apiConfig(t, fileBackend, "")
		cfg.Replicas.Enabled, cfg.Replicas.Address, cfg.Replicas.ID, cfg.Replicas.KeyPrefix = true, server.Addr, id, "serve:"
		logs, _ := stoppableServe(t, cfg)
		addrs = append(addrs, waitForLog(t, logs, "Listening on")["addr"])
		admins = append(admins, "http://"+adminAddr(t, logs))
		waitForLog(t, logs, "Routes API on /routes: its routes are kept in Redis")
	}
	body := `{"name": "local", "hosts": ["localhost"], "backends": ["` + apiBackend + `"]}` // play's host
	if code, answer := apiCall(t, admins[0], "POST", "/routes", body); code != http.StatusCreated {
		t.Fatalf("POST /routes on one instance: %d %s", code, answer)
	}
	if !testutil.Within(time.Second, func() bool { _, tag := play(t, addrs[1]); return tag == 'A' }) {
		t.Fatal("a route added over one instance's API does not take players on the other after a second")
	}
	for _, admin := range admins {
		if _, metrics := testutil.BearerCall(t, "GET", admin+"/metrics", "", ""); !strings.Contains(metrics, "moonbridge_replicas_redis_up 1") {
			t.Errorf("%s/metrics does not say Redis answers", admin)
		}
	}
}
