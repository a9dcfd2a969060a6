//go:build linux

package relay

import (
	"testing"
)

// After traffic, a session's idle directions give their buffers back: none for raw TCP (both
// ends are plain sockets), one for WebSocket on the goroutine path (the player's direction
// reads through ws.Conn), none on the event loops (nothing is held while idle).
func TestIdleDirectionsHoldNoBuffer(t *testing.T) {
	wsHeld := map[DataPath]float64{DataPathLoop: 0, DataPathGoroutines: 1}[testDataPath]
	for _, c := range []struct {
		protocol Protocol
		held     float64
	}{{Minecraft, 0}, {WS, wsHeld}} {
		t.Run(string(c.protocol), func(t *testing.T) {
			backend := startBackend(t, false)
			srv, addr := startProxy(t, func(cfg *Config) { cfg.Routes = routeTo(backend.addr()) }, c.protocol)
			conn := dialClient(t, c.protocol, addr)
			defer conn.Close()
			exchange(t, conn, "h", 300<<10) // several full 64 KiB batches each way
			waitForMetric(t, srv, "moonbridge_relay_buffers", nil, c.held)
			exchange(t, conn, "", 1000) // and the session still works after giving them back
		})
	}
}
