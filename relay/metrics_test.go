package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// metricValue gathers srv's series (a Server's, or another collector's, through a pedantic
// registry, which also checks that Collect matches Describe) and returns the one named name
// with exactly these labels; ok is false when there is none.
func metricValue(t *testing.T, srv prometheus.Collector, name string, labels map[string]string) (v float64, ok bool) {
	t.Helper()
	m := findMetric(t, srv, name, labels)
	switch {
	case m == nil:
		return 0, false
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue(), true
	}
	return m.GetCounter().GetValue(), true
}

// findMetric gathers srv's series as metricValue does and returns the one named name with
// exactly these labels, or nil.
func findMetric(t *testing.T, srv prometheus.Collector, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(srv)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue next
				}
			}
			return m
		}
	}
	return nil
}

// waitForMetric polls until the series exists with the value, or fails after
// testutil.WaitBound. A missing series is a failure even when want is 0: a renamed metric must
// not pass for an idle one.
func waitForMetric(t *testing.T, srv prometheus.Collector, name string, labels map[string]string, want float64) {
	t.Helper()
	var got float64
	var ok bool
	if testutil.Within(testutil.WaitBound, func() bool { got, ok = metricValue(t, srv, name, labels); return ok && got == want }) {
		return
	}
	if !ok {
		t.Fatalf("no series %s with labels %v (want %v)", name, labels, want)
	}
	t.Fatalf("%s with labels %v = %v, want %v", name, labels, got, want)
}

func TestMetricsCountSessionsAndBytes(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft)
	minecraft := map[string]string{"protocol": "minecraft"}
	up := map[string]string{"protocol": "minecraft", "direction": "up"}
	down := map[string]string{"protocol": "minecraft", "direction": "down"}

	conn := dialClient(t, Minecraft, addr)
	exchange(t, conn, "h", 5000) // handshake frame + 5000 bytes up, 5000 echoed down
	wantUp := float64(len(handshakeFrame("h", mc.NextLogin)) + 5000)
	waitForMetric(t, srv, "moonbridge_sessions_active", minecraft, 1)
	// A live session's bytes count before it ends.
	waitForMetric(t, srv, "moonbridge_relayed_bytes_total", up, wantUp)
	waitForMetric(t, srv, "moonbridge_relayed_bytes_total", down, 5000)

	conn.(*net.TCPConn).CloseWrite()
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	waitForMetric(t, srv, "moonbridge_sessions_active", minecraft, 0)
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "closed"}, 1)
	// Ended sessions keep their bytes in the totals, and their buffers are all back.
	waitForMetric(t, srv, "moonbridge_relayed_bytes_total", up, wantUp)
	waitForMetric(t, srv, "moonbridge_relayed_bytes_total", down, 5000)
	waitForMetric(t, srv, "moonbridge_relay_buffers", nil, 0)
}

func TestMetricsCountRefusalsAndFailures(t *testing.T) {
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Hosts: []string{"known.example"}, Backends: []pool.Backend{{Addr: "127.0.0.1:1"}}}}
		c.Limits.MaxConnections = 1
	}, Minecraft)

	// Not a Minecraft hello: bad_handshake.
	garbage, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	garbage.Write([]byte{0x02, 0x07, 0x00}) // a frame with packet id 7, not a handshake
	io.Copy(io.Discard, garbage)
	garbage.Close()
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "bad_handshake"}, 1)

	// No route for the host: answered by the fallback, counted as no_route.
	unknown := dialClient(t, Minecraft, addr)
	unknown.Write(handshakeFrame("other.example", mc.NextLogin))
	io.Copy(io.Discard, unknown)
	unknown.Close()
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "no_route"}, 1)

	// A route whose backend refuses: backend_unreachable.
	known := dialClient(t, Minecraft, addr)
	known.Write(handshakeFrame("known.example", mc.NextLogin))
	io.Copy(io.Discard, known)
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "backend_unreachable"}, 1)

	// Over the total limit while one connection is open: refused before any session.
	held := dialClient(t, Minecraft, addr)
	defer held.Close()
	waitForMetric(t, srv, "moonbridge_sessions_active", map[string]string{"protocol": "minecraft"}, 1)
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, over)
	over.Close()
	waitForMetric(t, srv, "moonbridge_connections_refused_total", map[string]string{"reason": refusedTotal}, 1)
	known.Close()
	held.Close()
	waitForMetric(t, srv, "moonbridge_sessions_active", map[string]string{"protocol": "minecraft"}, 0)
	waitForMetric(t, srv, "moonbridge_relay_buffers", nil, 0) // no failure path kept one
}

func TestOutcomeNames(t *testing.T) {
	for _, c := range []struct {
		reason error
		want   string
	}{
		{nil, "closed"},
		{errShutdown, "shutdown"},
		{&mc.HelloError{Err: errors.New("x")}, "bad_handshake"},
		{errors.Join(&NoRouteError{Host: "h"}, errors.New("fallback write failed")), "no_route"},
		{fmt.Errorf("answered: %w", &pool.DialError{}), "backend_unreachable"},
		{&pipe.SideError{Side: "client", Err: io.ErrUnexpectedEOF}, "client_error"},
		{&pipe.SideError{Side: "backend", Err: io.ErrUnexpectedEOF}, "backend_error"},
		{errors.New("something else"), "error"},
	} {
		if got := outcome(c.reason); got != c.want {
			t.Errorf("outcome(%v) = %q, want %q", c.reason, got, c.want)
		}
	}
}
