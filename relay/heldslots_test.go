package relay

import (
	"net/netip"
	"testing"
	"time"
	"unsafe"
)

// An idle session keeps what gives its limit slots back for as long as it lasts, so each slot
// holder is one small allocation: the connection's address and network slots one release, the
// player's address and route slots one. A release given back twice counts once.
func TestHeldSlotsAreOneAllocationEach(t *testing.T) {
	c := newCounter(Limits{ConnectionRate: 1e9, ConnectionBurst: 1e9, MaxConnectionsPerIP: 1e6,
		NetworkLimits: NetworkLimits{MaxConnectionsPerNetwork: 1e6, ConnectionRatePerNetwork: 1e9,
			ConnectionBurstPerNetwork: 1e9}}.withDefaults())
	addr, route := netip.MustParseAddr("192.0.2.7"), &Route{Name: "lobby", Hosts: []string{"play.example"}}
	held := make([]func(), 0, 1000)
	c.acquireAddr(addr) // the maps' entries exist from here on: only the releases are counted
	c.acquirePlayer(addr, route)
	cases := []struct {
		name    string
		acquire func() (func(), error)
	}{
		{"total", c.acquireTotal},
		{"address", func() (func(), error) { return c.acquireAddr(addr) }},
		{"player", func() (func(), error) { return c.acquirePlayer(addr, route) }},
	}
	for _, tc := range cases {
		allocs := testing.AllocsPerRun(100, func() {
			release, err := tc.acquire()
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, release)
		})
		if allocs > 2 { // the closure, and the flag that makes it run once
			t.Errorf("%s slot: %.0f allocations held per connection, want at most 2", tc.name, allocs)
		}
	}
	for _, release := range held {
		release()
		release()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total != 0 || c.perAddr[addr] != 1 || c.perNet[c.networkKey(addr)] != 1 ||
		c.players.perAddr[addr] != 1 || c.players.perRoute[route.Label()] != 1 {
		t.Errorf("after the releases (twice each): total %d, address %d, network %d, players %d, route %d; want 0 and the first acquire's 1s",
			c.total, c.perAddr[addr], c.perNet[c.networkKey(addr)], c.players.perAddr[addr], c.players.perRoute[route.Label()])
	}
}

// A session keeps what moving its player needs (sessionMoves) only once it can be moved, so
// that an idle session that cannot fits Go's 512-byte size class (one more byte rounds its
// allocation up to 576).
func TestSessionFitsItsSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(session{}); size > 512 {
		t.Errorf("session is %d bytes, want at most 512", size)
	}
}

// A session that has started keeps no handshake timer: the clock has stopped for good, and an
// idle session would otherwise hold the timer and its closure for its whole life.
func TestStartedSessionKeepsNoHandshakeTimer(t *testing.T) {
	fired := make(chan struct{})
	info := &connInfo{}
	info.timer = time.AfterFunc(time.Hour, func() { close(fired) })
	if !info.startSession() {
		t.Fatal("startSession says the handshake clock ran out, an hour early")
	}
	if info.timer != nil {
		t.Error("the started session still holds its handshake timer")
	}
	info.release() // nothing left to stop
	select {
	case <-fired:
		t.Error("the handshake timer fired after the session started")
	default:
	}
}
