package relay

import (
	"bufio"
	"net/netip"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// sendGarbage opens n connections from `from` that start with an SSH banner, and waits for
// each to be closed.
func sendGarbage(t *testing.T, from, addr string, n int) {
	t.Helper()
	for range n {
		conn := dialFrom(t, from, addr)
		conn.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
		if !closedWithin(conn, 10*time.Second) {
			t.Fatal("the proxy did not close a garbage connection")
		}
		conn.Close()
	}
}

// statusAnswered says whether a status ping from `from` gets an answer (the fallback's).
func statusAnswered(t *testing.T, from, addr string) bool {
	t.Helper()
	conn := dialFrom(t, from, addr)
	defer conn.Close()
	conn.Write(mc.AppendStatusRequest(handshakeFrame("h", mc.NextStatus)))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := readFrameFrom(bufio.NewReader(conn))
	return err == nil
}

func startBlockingProxy(t *testing.T, block Block) (*Server, string, *logLines) {
	t.Helper()
	var lines *logLines
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Limits.ConnectionBurst = 100
		c.Defence.Block = block
		lines = captureLog(t, c)
	}, Minecraft, WS)
	return srv, addr, lines
}

// Issue 27: an address that sends garbage After times within the window is refused at accept
// (counted as blocked, without a log line each, with one line saying it was blocked) until the
// block time has passed; other addresses are not touched.
func TestBlockedAfterRepeatedGarbageUntilTheBlockEnds(t *testing.T) {
	srv, addr, lines := startBlockingProxy(t, Block{After: 3, Window: 10 * time.Second, For: 2 * time.Second})
	sendGarbage(t, "127.0.0.21", addr, 3)
	waitForMetric(t, srv, "moonbridge_blocked_addresses", nil, 1)
	for range 5 {
		if statusAnswered(t, "127.0.0.21", addr) {
			t.Fatal("a blocked address got a status answer")
		}
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedBlocked}, 5)
	if !statusAnswered(t, "127.0.0.22", addr) {
		t.Fatal("another address was refused")
	}
	if n := lines.count(`"message":"address blocked`, `"network":"127.0.0.21/32"`); n != 1 {
		t.Errorf("%d lines saying the address was blocked, want 1", n)
	}
	if n := lines.count(`"reason":"blocked"`); n != 1 {
		t.Errorf("%d lines for 5 blocked connections, want 1 (sampled)", n)
	}
	if got := srv.BlockList(); len(got) != 1 || got[0].Network != netip.MustParsePrefix("127.0.0.21/32") {
		t.Errorf("block list %v, want 127.0.0.21/32", got)
	}
	time.Sleep(2 * time.Second)
	if !statusAnswered(t, "127.0.0.21", addr) {
		t.Fatal("still refused after the block time")
	}
	waitForMetric(t, srv, "moonbridge_blocked_addresses", nil, 0)
}

// A player whose client sent one malformed handshake, or a few, is never blocked with the
// defaults.
func TestAFewMalformedHandshakesDoNotBlock(t *testing.T) {
	srv, addr, _ := startBlockingProxy(t, DefaultBlock())
	for range DefaultBlock().After - 1 {
		conn := dialFrom(t, "127.0.0.23", addr)
		conn.Write(malformedHandshake())
		if !closedWithin(conn, 10*time.Second) {
			t.Fatal("the proxy did not close the connection")
		}
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedMalformed}, float64(DefaultBlock().After-1))
	if !statusAnswered(t, "127.0.0.23", addr) {
		t.Fatal("refused after fewer malformed handshakes than defence.block.after")
	}
}

// A reload and ClearBlockList (the admin request) empty the list.
func TestReloadAndClearEmptyTheBlockList(t *testing.T) {
	block := Block{After: 2, Window: 10 * time.Second, For: time.Hour}
	var cfg Config
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Limits.ConnectionBurst = 100
		c.Defence.Block = block
		cfg = *c
	}, Minecraft, WS)
	sendGarbage(t, "127.0.0.24", addr, 2)
	sendGarbage(t, "127.0.0.25", addr, 2)
	waitForMetric(t, srv, "moonbridge_blocked_addresses", nil, 2)
	if n := srv.ClearBlockList(); n != 2 {
		t.Errorf("ClearBlockList cleared %d, want 2", n)
	}
	if !statusAnswered(t, "127.0.0.24", addr) {
		t.Fatal("refused after ClearBlockList")
	}
	sendGarbage(t, "127.0.0.24", addr, 2)
	if statusAnswered(t, "127.0.0.24", addr) {
		t.Fatal("not blocked again")
	}
	if _, err := srv.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if !statusAnswered(t, "127.0.0.24", addr) {
		t.Fatal("refused after a reload")
	}
}

// A trusted proxy is never blocked; the player its PROXY header names is, before the sniff.
func TestTrustedProxyIsNotBlockedItsPlayerIs(t *testing.T) {
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Limits.ConnectionBurst = 100
		c.Defence.Block = Block{After: 2, For: time.Hour}
		c.TrustedProxies = mustTrust(t, "127.0.0.26/32")
		c.Listeners[0].Proxy = ProxyRefuseUntrusted
	}, Minecraft, WS)
	// send opens a connection from the trusted proxy with a PROXY header and first bytes, and
	// says whether a status answer came back.
	send := func(header string, first []byte) bool {
		conn := dialFrom(t, "127.0.0.26", addr)
		defer conn.Close()
		conn.Write(append([]byte(header), first...))
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := readFrameFrom(bufio.NewReader(conn))
		return err == nil
	}
	named, own := "PROXY TCP4 203.0.113.9 127.0.0.1 4000 25577\r\n", "PROXY UNKNOWN\r\n"
	status := mc.AppendStatusRequest(handshakeFrame("h", mc.NextStatus))
	for range 3 {
		send(named, []byte("SSH-2.0-x\r\n"))
		send(own, []byte("SSH-2.0-x\r\n")) // the proxy's own address: never struck
	}
	waitForMetric(t, srv, "moonbridge_blocked_addresses", nil, 1)
	if got := srv.BlockList(); len(got) != 1 || got[0].Network != netip.MustParsePrefix("203.0.113.9/32") {
		t.Fatalf("block list %v, want the named player only", got)
	}
	if !send(own, status) {
		t.Fatal("the trusted proxy was refused")
	}
	if send(named, status) {
		t.Fatal("the blocked player behind the proxy got an answer")
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedBlocked}, 2) // the third garbage and the ping
}

// IPv6 addresses are blocked by their network of limits.ipv6_prefix bits.
func TestBlockListKeysIPv6ByNetwork(t *testing.T) {
	srv, err := New(Config{Defence: Defence{Block: Block{After: 1}}, Fallback: DefaultFallback()})
	if err != nil {
		t.Fatal(err)
	}
	srv.strike(srv.log, netip.MustParseAddr("2001:db8:1:2::7"))
	if !srv.isBlocked(netip.MustParseAddr("2001:db8:1:2:ffff::1")) {
		t.Error("another address of the /64 is not blocked")
	}
	if srv.isBlocked(netip.MustParseAddr("2001:db8:1:3::7")) {
		t.Error("an address of another /64 is blocked")
	}
	if got := srv.BlockList(); len(got) != 1 || got[0].Network != netip.MustParsePrefix("2001:db8:1:2::/64") {
		t.Errorf("block list %v", got)
	}
}

// The list holds at most MaxAddresses: past it a new address is not added and those blocked
// stay blocked; once blocks expire, a sweep makes room.
func TestBlockListCapHolds(t *testing.T) {
	b, now := smallBlockList(time.Second), time.Now()
	for i := range 10 {
		b.strike(listAddr(i), now)
	}
	if n := b.size(now); n != 3 {
		t.Fatalf("%d blocked, want the cap of 3", n)
	}
	for i := range 10 {
		if got, want := b.has(listAddr(i), now), i < 3; got != want {
			t.Errorf("address %d blocked: %v, want %v", i, got, want)
		}
	}
	later := now.Add(time.Minute)
	if !b.strike(listAddr(9), later) || b.size(later) != 1 {
		t.Errorf("after the blocks expired a new address was not blocked (%d on the list)", b.size(later))
	}
}

// smallBlockList holds 3 addresses and blocks on the first strike, for a minute.
func smallBlockList(window time.Duration) *blockList {
	return newBlockList(Block{After: 1, Window: window, For: time.Minute, MaxAddresses: 3})
}

// listAddr is the test address 10.0.0.i.
func listAddr(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}) }

// With nothing blocked, the check at accept costs no allocation.
func TestBlockCheckAtAcceptZeroAllocs(t *testing.T) {
	srv, err := New(Config{Defence: Defence{Block: DefaultBlock()}, Fallback: DefaultFallback()})
	if err != nil {
		t.Fatal(err)
	}
	a := netip.MustParseAddr("127.0.0.1")
	if n := testing.AllocsPerRun(100, func() { srv.isBlocked(a) }); n != 0 {
		t.Fatalf("%v allocations, want 0", n)
	}
	srv.strike(srv.log, netip.MustParseAddr("127.0.0.2"))
	if n := testing.AllocsPerRun(100, func() { srv.isBlocked(a) }); n != 0 {
		t.Fatalf("with a strike counted: %v allocations, want 0", n)
	}
}

// rateRefusalsPerStrike refusals by the rate are one strike, and the addresses whose refusals
// are counted have a cap of their own: a flood of them leaves room for garbage strikes.
func TestRateRefusalsStrikeWithinTheirOwnCap(t *testing.T) {
	b, now := smallBlockList(time.Minute), time.Now()
	for i := range 10 {
		b.refusedOverRate(listAddr(i), now)
	}
	if !b.strike(listAddr(100), now) {
		t.Error("a garbage strike found no room after refusals by the rate from 10 addresses")
	}
	blocked := 0
	for range rateRefusalsPerStrike - 1 {
		if b.refusedOverRate(listAddr(0), now) {
			blocked++
		}
	}
	if blocked != 1 || !b.has(listAddr(0), now) {
		t.Errorf("%d blocks after %d refusals by the rate, want 1 at the last", blocked, rateRefusalsPerStrike)
	}
}
