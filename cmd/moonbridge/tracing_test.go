package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/internal/tracing/tracingtest"
	"github.com/moonbridge/moonbridge/relay"
)

// With the tracing section on, serve exports a join's spans with the headers file's headers
// (by its exit at the latest: the exit flushes them), under the configured service name, and
// /metrics counts them.
func TestServeTracesJoins(t *testing.T) {
	rcv := tracingtest.Start(t)
	headers := filepath.Join(t.TempDir(), "headers")
	if err := os.WriteFile(headers, []byte("X-Api-Key: s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Listeners = []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft}}}
	cfg.Routes = []config.Route{{Hosts: []string{"*"}, Backends: []string{taggedBackend(t, 7)}}}
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.Tracing.Endpoint, cfg.Tracing.HeadersFile, cfg.Tracing.ServiceName = rcv.URL, headers, "edge-1"
	logs, stop := stoppableServe(t, cfg)
	admin := "http://" + adminAddr(t, logs)
	conn, _ := play(t, waitForLog(t, logs, "Listening on")["addr"])
	echoes(t, conn, "traced")
	testutil.WaitFor(t, "the join's spans counted as exported", func() bool {
		return strings.Contains(httpGet(t, admin+"/metrics"), `moonbridge_trace_spans_total{result="exported"} 4`) // join, accept, route, dial
	})
	conn.Close()
	stop()

	if _, err := tracingtest.Find(rcv.Spans(), "join"); err != nil {
		t.Fatalf("spans %v: %v", rcv.Spans(), err)
	}
	if h := rcv.Headers(); len(h) == 0 || h[0].Get("X-Api-Key") != "s3cret" {
		t.Errorf("export headers %v, want the headers file's", h)
	}
	if svc := rcv.Services(); len(svc) == 0 || svc[0] != "edge-1" {
		t.Errorf("service names %v", svc)
	}
	waitForLog(t, logs, "tracing stopped")
}
