package relay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A flood of refusals writes at most refusalLinesPerSecond lines per reason each second, and the
// first line after it says how many were left out; other reasons are not held back.
func TestRefusalLinesAreSampled(t *testing.T) {
	var s sampler
	t0 := time.Unix(1000, 0)
	written := 0
	for i := range 3 * refusalLinesPerSecond {
		if _, ok := s.allow(refusedPerAddr, t0.Add(time.Duration(i)*time.Millisecond)); ok {
			written++
		}
	}
	if written != refusalLinesPerSecond {
		t.Errorf("%d lines in the first second, want %d", written, refusalLinesPerSecond)
	}
	if _, ok := s.allow(refusedTLS, t0); !ok {
		t.Error("another reason was held back")
	}
	suppressed, ok := s.allow(refusedPerAddr, t0.Add(time.Second))
	if !ok || suppressed != 2*refusalLinesPerSecond {
		t.Errorf("next second: ok %v, suppressed %d; want a line saying %d were left out", ok, suppressed, 2*refusalLinesPerSecond)
	}
}

// Issue 39, finding 4: refused connections that say nothing (a flood's, from one /24) cannot
// take the answers from other refused clients: a player in another network, and one in the
// flooded /24, still read why they were refused. Connections that sent a first byte and stall
// hold at most refusalSlotsPerNetwork answers, so other networks are still answered.
func TestRefusedClientIsAnsweredWhileStalledOnesHoldTheSlots(t *testing.T) {
	for _, tc := range []struct {
		name      string
		first     []byte // what each stalled connection sends
		stalled   int
		sameNet   bool // whether a player in the flooded /24 is answered too
		protocols []Protocol
	}{
		{"silent", nil, 2*maxRefusalWaits + 10, true, []Protocol{Minecraft}},
		{"silent, sniffing listener", nil, 2*maxRefusalWaits + 10, true, []Protocol{Minecraft, WS}},
		{"first byte", []byte{0x10}, 2 * maxRefusalAnswers, false, []Protocol{Minecraft}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(testutil.ClosedPort(t))
				c.Limits.MaxConnectionsPerNetwork = 1
			}, tc.protocols...)
			dialFrom(t, "127.0.8.1", addr) // holds the flooded network's one connection
			dialFrom(t, "127.0.9.1", addr) // and the other network's
			waitForOpen(t, srv, 2)
			for i := range tc.stalled {
				conn := dialFrom(t, fmt.Sprintf("127.0.8.%d", 2+i%200), addr)
				conn.Write(tc.first)
			}
			waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedPerNetwork}, float64(tc.stalled))
			players := []string{"127.0.9.2"}
			if tc.sameNet {
				players = append(players, "127.0.8.250")
			}
			for _, from := range players {
				if got := askStatus(t, dialFrom(t, from, addr)); !strings.Contains(got, "connections per network") {
					t.Errorf("refused player from %s read %q, want the limit", from, got)
				}
			}
		})
	}
}

// waitForOpen waits until the total limit counts n connections.
func waitForOpen(t *testing.T, srv *Server, n int) {
	t.Helper()
	if !testutil.Within(testutil.WaitBound, func() bool { return openTotal(srv) == n }) {
		t.Fatalf("%d connections counted, want %d", openTotal(srv), n)
	}
}
