package relay

import (
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern/playtest"
)

// TestDrainCountsAPlayerThatIgnoresItsTransferClosed: a player sent a Transfer that stays is
// closed by the proxy transferLeave later; the drain's result counts it closed (it counted
// "ended": the session ended before the deadline, but not by itself), and its outcome in
// moonbridge_sessions_total says why.
func TestDrainCountsAPlayerThatIgnoresItsTransferClosed(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Transfer = transferTarget
	}, Minecraft)
	cl := joinThrough(t, Minecraft, addr, nil)
	result := drainInBackground(t, srv, time.Minute)
	if _, err := awaitTransfer(t, cl); err != nil {
		t.Fatalf("waiting for the Transfer: %v", err)
	}
	// The client does not leave: the proxy closes it transferLeave after the Transfer.
	if r := drainResult(t, result); r != (DrainResult{Closed: 1, Transferred: 1}) {
		t.Errorf("drain result %+v, want the player transferred and closed, none ended by itself", r)
	}
	labels := map[string]string{"protocol": "minecraft", "outcome": "transfer_ignored"}
	if n, _ := metricValue(t, srv, "moonbridge_sessions_total", labels); n != 1 {
		t.Errorf("moonbridge_sessions_total%v = %v, want 1", labels, n)
	}
}
