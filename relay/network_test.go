package relay

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// A network is an IPv4 /24 and an IPv6 /64 by default, an IPv4-mapped address is counted in
// its IPv4 network, a zone is left out, the prefixes can be set, and an IPv6 network is never
// narrower than what counts as one address (ipv6_prefix).
func TestNetworkKeys(t *testing.T) {
	cases := []struct {
		limits     Limits
		addr, want string
	}{
		{Limits{}, "192.0.2.7", "192.0.2.0/24"},
		{Limits{}, "::ffff:192.0.2.7", "192.0.2.0/24"},
		{Limits{}, "2001:db8:1:2:3::4", "2001:db8:1:2::/64"},
		{Limits{}, "fe80::1%eth0", "fe80::/64"},
		{Limits{NetworkLimits: NetworkLimits{IPv4NetworkPrefix: 16}}, "192.0.2.7", "192.0.0.0/16"},
		{Limits{NetworkLimits: NetworkLimits{IPv4NetworkPrefix: 32}}, "192.0.2.7", "192.0.2.7/32"},
		{Limits{NetworkLimits: NetworkLimits{IPv6NetworkPrefix: 48}}, "2001:db8:1:2:3::4", "2001:db8:1::/48"},
		{Limits{IPv6Prefix: 56}, "2001:db8:1:2:3::4", "2001:db8:1::/56"},
	}
	for _, tc := range cases {
		c := newCounter(tc.limits.withDefaults())
		if got := c.networkKey(netip.MustParseAddr(tc.addr)); got.String() != tc.want {
			t.Errorf("%s with %+v: network %s, want %s", tc.addr, tc.limits.NetworkLimits, got, tc.want)
		}
	}
}

func mustRefuse(t *testing.T, err error, reason string) {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || le.Reason != reason {
		t.Fatalf("%v, want the %s refusal", err, reason)
	}
}

// Addresses of one IPv6 /64, each its own address (ipv6_prefix 128), count together against
// the network's open connections; another /64 is counted on its own, and a slot given back is
// free again.
func TestIPv6NetworkCountsItsAddressesTogether(t *testing.T) {
	c := newCounter(Limits{IPv6Prefix: 128, ConnectionRate: 1000, ConnectionBurst: 1000,
		NetworkLimits: NetworkLimits{MaxConnectionsPerNetwork: 3}}.withDefaults())
	var releases []func()
	for i := 1; i <= 3; i++ {
		release, err := c.acquireAddr(netip.MustParseAddr(fmt.Sprintf("2001:db8:1:2::%d", i)))
		if err != nil {
			t.Fatalf("address %d of the /64: %v", i, err)
		}
		releases = append(releases, release)
	}
	_, err := c.acquireAddr(netip.MustParseAddr("2001:db8:1:2::4"))
	mustRefuse(t, err, refusedPerNetwork)
	if _, err := c.acquireAddr(netip.MustParseAddr("2001:db8:1:3::1")); err != nil {
		t.Fatalf("another /64: %v", err)
	}
	releases[0]()
	if _, err := c.acquireAddr(netip.MustParseAddr("2001:db8:1:2::4")); err != nil {
		t.Fatalf("after a slot of the /64 was given back: %v", err)
	}
}

// The network's new-connection bucket refuses past its burst, and the refused address keeps
// the token its own bucket would have spent.
func TestNetworkConnectionRate(t *testing.T) {
	c := newCounter(Limits{ConnectionRate: 0.001, ConnectionBurst: 5,
		NetworkLimits: NetworkLimits{ConnectionRatePerNetwork: 0.001, ConnectionBurstPerNetwork: 2}}.withDefaults())
	for _, a := range []string{"198.51.100.1", "198.51.100.2"} {
		if _, err := c.acquireAddr(netip.MustParseAddr(a)); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	refused := netip.MustParseAddr("198.51.100.3")
	_, err := c.acquireAddr(refused)
	mustRefuse(t, err, refusedNetworkRate)
	if b := c.addrRate.buckets[refused]; b == nil || b.tokens != 5 {
		t.Errorf("the refused address's bucket %+v, want its 5 tokens back", b)
	}
	if _, err := c.acquireAddr(netip.MustParseAddr("198.51.101.1")); err != nil {
		t.Fatalf("another /24: %v", err)
	}
}

// Status pings (legacy ones too) and logins each have their own bucket per network.
func TestNetworkStatusAndLoginBuckets(t *testing.T) {
	c := newCounter(Limits{NetworkLimits: NetworkLimits{StatusRatePerNetwork: 0.001, StatusBurstPerNetwork: 2,
		LoginRatePerNetwork: 0.001, LoginBurstPerNetwork: 1}}.withDefaults())
	status := mc.Hello{Handshake: mc.Handshake{NextState: mc.NextStatus}}
	legacy := mc.Hello{Legacy: &mc.LegacyPing{}}
	login := mc.Hello{Handshake: mc.Handshake{NextState: mc.NextLogin}}
	transfer := mc.Hello{Handshake: mc.Handshake{NextState: mc.NextTransfer}}
	a, b := netip.MustParseAddr("203.0.113.1"), netip.MustParseAddr("203.0.113.2")
	if err := c.meterHello(a, status); err != nil {
		t.Fatal(err)
	}
	if err := c.meterHello(b, legacy); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, c.meterHello(a, status), refusedStatusRate)
	if err := c.meterHello(b, login); err != nil {
		t.Fatalf("a login after the pings ran out: %v", err)
	}
	mustRefuse(t, c.meterHello(a, transfer), refusedLoginRate)
	if err := c.meterHello(netip.MustParseAddr("203.0.114.1"), status); err != nil {
		t.Fatalf("a ping from another /24: %v", err)
	}
}

// setStrict divides the per-address and per-network new-connection bursts (and rates) by
// strictFactor, and setStrict(false) gives them back.
func TestSetStrictTightensNewConnections(t *testing.T) {
	c := newCounter(Limits{ConnectionRate: 0.001, ConnectionBurst: 8, MaxConnectionsPerIP: 100,
		NetworkLimits: NetworkLimits{ConnectionRatePerNetwork: 0.001, ConnectionBurstPerNetwork: 40, MaxConnectionsPerNetwork: 1000}}.withDefaults())
	c.setStrict(true)
	if c.addrRate.rate != 0.001/strictFactor || c.netRate.rate != 0.001/strictFactor {
		t.Errorf("strict rates %v and %v, want the configured ones divided by %d", c.addrRate.rate, c.netRate.rate, strictFactor)
	}
	connect := func(addr string) error { _, err := c.acquireAddr(netip.MustParseAddr(addr)); return err }
	for range 8 / strictFactor {
		if err := connect("192.0.2.1"); err != nil {
			t.Fatal(err)
		}
	}
	mustRefuse(t, connect("192.0.2.1"), refusedRate)
	for i := range 40 / strictFactor {
		if err := connect(fmt.Sprintf("198.51.100.%d", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	mustRefuse(t, connect("198.51.100.200"), refusedNetworkRate)

	c.setStrict(false)
	for range 8 {
		if err := connect("203.0.113.1"); err != nil {
			t.Fatalf("after strict ended, a new address's burst: %v", err)
		}
	}
	if c.addrRate.burst != 8 || c.netRate.burst != 40 {
		t.Errorf("bursts %v and %v after strict ended, want 8 and 40", c.addrRate.burst, c.netRate.burst)
	}
}

// A connection a trusted proxy carries moves its network count with its address: the proxy's
// network is free again, the player's is taken.
func TestClaimMovesTheNetworkCount(t *testing.T) {
	c := newCounter(Limits{NetworkLimits: NetworkLimits{MaxConnectionsPerNetwork: 1}}.withDefaults())
	info := &connInfo{}
	if err := info.claim(c, netip.MustParseAddr("10.0.0.1")); err != nil {
		t.Fatal(err)
	}
	if err := info.claim(c, netip.MustParseAddr("10.0.1.1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.acquireAddr(netip.MustParseAddr("10.0.0.2")); err != nil {
		t.Errorf("the first network after the claim moved: %v", err)
	}
	_, err := c.acquireAddr(netip.MustParseAddr("10.0.1.2"))
	mustRefuse(t, err, refusedPerNetwork)
	info.release()
	if _, err := c.acquireAddr(netip.MustParseAddr("10.0.1.2")); err != nil {
		t.Errorf("after the connection closed: %v", err)
	}
}

// Thirty addresses of one /24 open connections: those past the network's limit are refused
// (and told why), while a player from another /24 gets in.
func TestConnectionsPerNetworkOverLoopback(t *testing.T) {
	testutil.CheckGoroutines(t)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Limits.MaxConnectionsPerNetwork = 20
		c.Limits.HandshakeTimeout = time.Minute
	}, Minecraft, WS, WSS)
	for i := 1; i <= 30; i++ {
		dialFrom(t, fmt.Sprintf("127.0.1.%d", i), addr) // connects and says nothing
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedPerNetwork}, 10)
	if status := askStatus(t, dialFrom(t, "127.0.1.31", addr)); !strings.Contains(status, "connections per network") {
		t.Errorf("a ping from the full /24: %q, want the network limit named", status)
	}
	if status := askStatus(t, dialFrom(t, "127.0.2.1", addr)); !strings.Contains(status, "not reachable") {
		t.Errorf("a ping from another /24: %q, want the fallback's entry", status)
	}
}

// Pings past the network's status burst, from addresses each under its own limits, get the
// refusal; a login from the same network and a ping from another are not touched. Logins
// past the login burst are refused in turn.
func TestStatusAndLoginRatePerNetworkOverLoopback(t *testing.T) {
	testutil.CheckGoroutines(t)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Limits.StatusRatePerNetwork, c.Limits.StatusBurstPerNetwork = 0.001, 3
		c.Limits.LoginRatePerNetwork, c.Limits.LoginBurstPerNetwork = 0.001, 2
	}, Minecraft)
	for i := 1; i <= 3; i++ {
		if status := askStatus(t, dialFrom(t, fmt.Sprintf("127.0.4.%d", i), addr)); !strings.Contains(status, "not reachable") {
			t.Fatalf("ping %d: %q, want the fallback's entry", i, status)
		}
	}
	if status := askStatus(t, dialFrom(t, "127.0.4.4", addr)); !strings.Contains(status, "status pings per second per network") {
		t.Errorf("the fourth ping of the /24: %q, want the status rate named", status)
	}
	if status := askStatus(t, dialFrom(t, "127.0.5.1", addr)); !strings.Contains(status, "not reachable") {
		t.Errorf("a ping from another /24: %q, want the fallback's entry", status)
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedStatusRate}, 1)
	for i := 1; i <= 2; i++ {
		if text := loginAnswer(t, dialFrom(t, fmt.Sprintf("127.0.4.%d", 10+i), addr)); !strings.Contains(text, "not reachable") {
			t.Fatalf("login %d: %q, want the fallback's disconnect", i, text)
		}
	}
	if text := loginAnswer(t, dialFrom(t, "127.0.4.13", addr)); !strings.Contains(text, "logins per second per network") {
		t.Errorf("the third login of the /24: %q, want the login rate named", text)
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedLoginRate}, 1)
}

// loginAnswer sends a login hello and a frame behind it on conn and returns the first frame
// back: the proxy's login disconnect when it answers, else the frame an echoing backend
// returns.
func loginAnswer(t *testing.T, conn net.Conn) string {
	t.Helper()
	conn.Write(append(handshakeFrame("h", mc.NextLogin), 1, 0))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	body, err := readFrameFrom(bufio.NewReader(conn))
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	return string(body)
}
