package relay

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/ws"
)

const attackSeries = "moonbridge_attack_mode"

// openLimits lets one test address open as many connections as a flood needs.
func openLimits(c *Config) {
	c.Limits.MaxConnectionsPerIP, c.Limits.ConnectionRate, c.Limits.ConnectionBurst = 10000, 1e6, 10000
	n := &c.Limits.NetworkLimits
	n.MaxConnectionsPerNetwork, n.ConnectionRatePerNetwork, n.ConnectionBurstPerNetwork = 10000, 1e6, 10000
	n.StatusRatePerNetwork, n.StatusBurstPerNetwork, n.LoginRatePerNetwork, n.LoginBurstPerNetwork = 1e6, 10000, 1e6, 10000
}

// quickAttackMode measures every 50 ms with thresholds no single test connection reaches (one
// connection in a measurement is 20 a second).
func quickAttackMode(cooldown time.Duration) AttackMode {
	return AttackMode{Enabled: true, ConnectionsPerSecond: 100, PingsPerSecond: 100, LoginsPerSecond: 100,
		Cooldown: cooldown, Interval: 50 * time.Millisecond}
}

// Rates over a threshold start the attack mode with one warning line naming the rate and a
// gauge at 1; once they stay under for the cooldown it ends with one line saying for how long
// and how many were refused. A session established before it relays all along.
func TestAttackModeStartsAndEnds(t *testing.T) {
	onlyHellos := func(c *Config) { openLimits(c); c.Defence.AttackMode.ConnectionsPerSecond = 1e6 }
	for _, tc := range []struct {
		rate  string
		hello []byte
		tune  func(*Config)
	}{
		// The default per-address rate refuses most of the flood, and what comes meanwhile.
		{"connections", nil, func(*Config) {}},
		{"pings", mc.AppendStatusRequest(handshakeFrame("h", mc.NextStatus)), onlyHellos},
		{"logins", handshakeFrame("h", mc.NextLogin), onlyHellos},
	} {
		t.Run(tc.rate, func(t *testing.T) {
			backend := startBackend(t, false)
			var lines *logLines
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(backend.addr())
				c.Defence.AttackMode = quickAttackMode(startsAndEndsCooldown)
				tc.tune(c)
				lines = captureLog(t, c)
			}, Minecraft)
			session := dialClient(t, Minecraft, addr)
			defer session.Close()
			exchange(t, session, "h", 1000)
			waitForMetric(t, srv, attackSeries, nil, 0)

			spreadFlood(t, srv, addr, tc.hello)
			waitForMetric(t, srv, attackSeries, nil, 1)
			if !counterStrict(srv) || !srv.meter.Strict() {
				t.Errorf("in attack mode: new-connection rates strict %v, login meter strict %v; want both", counterStrict(srv), srv.meter.Strict())
			}
			if n := lines.count(`"level":"warn"`, `"rate":"`+tc.rate+`"`, `"threshold":100`, "attack mode on"); n != 1 {
				t.Errorf("%d warning lines naming the %s rate, want 1:\n%s", n, tc.rate, lines.String())
			}
			exchange(t, session, "", 1000)
			if tc.rate == "connections" {
				for range 3 { // under the threshold, over the per-address rate
					dialFrom(t, "127.0.0.1", addr).Close()
				}
			}

			waitForMetric(t, srv, attackSeries, nil, 0)
			if counterStrict(srv) || srv.meter.Strict() {
				t.Errorf("after the attack mode: new-connection rates strict %v, login meter strict %v; want neither", counterStrict(srv), srv.meter.Strict())
			}
			if n := lines.count(`"level":"info"`, "attack mode off after", `"refused":`); n != 1 {
				t.Errorf("%d lines saying the attack mode ended, want 1:\n%s", n, lines.String())
			}
			if tc.rate == "connections" && lines.count("attack mode off after", `"refused":0,`) != 0 {
				t.Errorf("the end line counts no refusal:\n%s", lines.String())
			}
			waitForMetric(t, srv, "moonbridge_attack_mode_activations_total", nil, 1)
			exchange(t, session, "", 1000)
		})
	}
}

// startsAndEndsCooldown is the attack mode's cooldown in TestAttackModeStartsAndEnds: longer
// than a loaded machine stalls the flood or the checks made in attack mode (with 300 ms, under
// the race detector and other builds, the mode ended and started again within one flood, or
// ended before its gauge was read), short enough for the test to see the mode end.
const startsAndEndsCooldown = 3 * time.Second

func counterStrict(srv *Server) bool {
	srv.counter.mu.Lock()
	defer srv.counter.mu.Unlock()
	return srv.counter.strict
}

// The zero AttackMode is off: no flood starts it.
func TestAttackModeOff(t *testing.T) {
	srv, addr := startProxy(t, func(c *Config) {
		openLimits(c)
		c.Defence.AttackMode = quickAttackMode(time.Hour)
		c.Defence.AttackMode.Enabled = false
	}, Minecraft)
	for range 100 {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
		}
	}
	time.Sleep(200 * time.Millisecond) // four measurements
	waitForMetric(t, srv, attackSeries, nil, 0)
	waitForMetric(t, srv, "moonbridge_attack_mode_activations_total", nil, 0)
}

// In attack mode a route whose backend stopped answering answers pings with its last live
// answer, however old, and a route that never had one with the fallback.
func TestAttackModeAnswersPingsFromTheCache(t *testing.T) {
	srv, addr, backend := startAttackStatusProxy(t, "cached.example", time.Nanosecond)
	pingStatus(t, Minecraft, addr, "cached.example") // a live answer, kept
	backend.ln.Close()
	spreadFlood(t, srv, addr, nil)
	for range 3 {
		if got := jsonText(t, pingStatus(t, Minecraft, addr, "cached.example")); got != jsonText(t, mustJSON(t, paperStatus)) {
			t.Errorf("attack mode answer %s, want the cached %s", got, paperStatus)
		}
	}
	if status := pingStatus(t, Minecraft, addr, "down.example"); !strings.Contains(jsonText(t, status), DefaultFallback().Status.MOTD) {
		t.Errorf("a route without cached answers got %s, want the fallback", jsonText(t, status))
	}
}

// startAttackStatusProxy starts a proxy with open limits and quickAttackMode, a route for host
// to a backend that answers status pings (with statusCache), and one for down.example to none.
func startAttackStatusProxy(t *testing.T, host string, statusCache time.Duration) (*Server, string, *liveStatusServer) {
	backend := startLiveStatusServer(t, paperStatus)
	srv, addr := startProxy(t, func(c *Config) {
		openLimits(c)
		c.Defence.AttackMode = quickAttackMode(time.Hour)
		c.Routes = []Route{
			{Hosts: []string{host}, Backends: []pool.Backend{{Addr: backend.ln.Addr().String()}}, StatusCache: statusCache},
			{Hosts: []string{"down.example"}, Backends: []pool.Backend{{Addr: testutil.ClosedPort(t)}}},
		}
	}, Minecraft)
	return srv, addr, backend
}

// A wss client over a per-address limit finishes TLS and gets HTTP 429 with the reason, as a
// ws client does; in attack mode it is refused before TLS.
func TestWSSOverTheAddressLimitGets429(t *testing.T) {
	for _, provider := range []string{"go", "boringssl"} {
		t.Run(provider, func(t *testing.T) {
			backend := startBackend(t, false)
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(backend.addr())
				c.Limits.MaxConnectionsPerIP = 1
				c.TLS = tlsServer(t, provider)
				c.Defence.AttackMode = quickAttackMode(time.Hour)
			}, WSS)
			first := dialClient(t, WSS, addr)
			defer first.Close()
			exchange(t, first, "h", 100)

			var refused *ws.HandshakeError
			_, err := dialWSS(addr)
			if !errors.As(err, &refused) || refused.StatusCode != http.StatusTooManyRequests ||
				refused.Text != "over the limit of 1 connections per address" {
				t.Fatalf("second wss client from the same address: %v, want HTTP 429 with the limit", err)
			}
			waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedPerAddr}, 1)

			spreadFlood(t, srv, addr, nil)
			if _, err := dialWSS(addr); err == nil || errors.As(err, &refused) {
				t.Errorf("wss client over the limit in attack mode: %v, want the connection closed before TLS", err)
			}
			exchange(t, first, "", 100)
		})
	}
}

func dialWSS(addr string) (*ws.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ws.Dial(ctx, ws.DialConfig{URL: "wss://" + addr + "/mc", TLSConfig: &tls.Config{InsecureSkipVerify: true}})
}

// A refused wss client holds a slot of the total limit while it is answered, and is closed by
// the handshake timeout when it does not finish: refusals cannot hold TLS handshakes beyond the
// limits.
func TestRefusedWSSCountsWhileAnswered(t *testing.T) {
	for _, provider := range []string{"go", "boringssl"} {
		t.Run(provider, func(t *testing.T) { refusedWSSCountsWhileAnswered(t, provider) })
	}
}

func refusedWSSCountsWhileAnswered(t *testing.T, provider string) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Limits.MaxConnectionsPerIP, c.Limits.MaxConnections = 1, 2
		c.Limits.HandshakeTimeout = time.Second
		c.TLS = tlsServer(t, provider)
	}, WSS)
	first := dialClient(t, WSS, addr)
	defer first.Close()
	exchange(t, first, "h", 100)

	stalled := dialFrom(t, "127.0.0.1", addr) // refused by the address limit
	stalled.Write([]byte{0x16, 0x03, 0x01})   // starts a TLS record and stalls
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedPerAddr}, 1)
	if !testutil.Within(testutil.WaitBound, func() bool { return openTotal(srv) == 2 }) {
		t.Fatalf("%d connections counted, want 2: the refused one is not counted while answered", openTotal(srv))
	}
	third := dialFrom(t, "127.0.0.1", addr)
	if !closedWithin(third, 10*time.Second) {
		t.Fatal("the proxy did not close a connection over the total limit")
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedTotal}, 1)
	if !closedWithin(stalled, 10*time.Second) {
		t.Fatal("a refused wss client that never finished TLS was not closed")
	}
	if !testutil.Within(testutil.WaitBound, func() bool { return openTotal(srv) == 1 }) {
		t.Errorf("%d connections counted after the refused one closed, want 1", openTotal(srv))
	}
	exchange(t, first, "", 100)
}

// openTotal is how many connections the total limit counts now.
func openTotal(srv *Server) int {
	srv.counter.mu.Lock()
	defer srv.counter.mu.Unlock()
	return srv.counter.total
}

// A reload applies the attack mode's settings: turning it on makes a flood start it, turning
// it off ends it at the next measurement, with its line.
func TestAttackModeFollowsReload(t *testing.T) {
	var lines *logLines
	srv, addr := startProxy(t, func(c *Config) {
		openLimits(c)
		lines = captureLog(t, c)
	}, Minecraft)
	if _, err := reload(srv, func(c *Config) { c.Defence.AttackMode = quickAttackMode(time.Hour) }); err != nil {
		t.Fatal(err)
	}
	spreadFlood(t, srv, addr, nil)
	if _, err := reload(srv, func(c *Config) { c.Defence.AttackMode.Enabled = false }); err != nil {
		t.Fatal(err)
	}
	waitForMetric(t, srv, attackSeries, nil, 0)
	if n := lines.count("attack mode off after", `"why":"attack mode turned off"`); n != 1 {
		t.Errorf("%d lines saying the reload ended the attack mode, want 1:\n%s", n, lines.String())
	}
}

// A measurement counts each network for at most its cap, and every event of networks past
// maxShareNetworks in full.
func TestAttackSharesAreCappedPerNetwork(t *testing.T) {
	var shares attackShares
	flooding, quiet := netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24")
	for range 1000 {
		shares.note(flooding, kindConnection)
	}
	shares.note(quiet, kindConnection)
	shares.note(quiet, kindLogin)
	got := shares.take([attackKinds]float64{kindConnection: 20, kindPing: 10, kindLogin: 5})
	if want := [attackKinds]float64{kindConnection: 21, kindLogin: 1}; got != want {
		t.Errorf("measured %v, want %v: the flooding network counts 20, the quiet one its own", got, want)
	}
	for i := range maxShareNetworks + 3 {
		shares.note(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32), kindPing)
	}
	if got := shares.take([attackKinds]float64{1, 1, 1}); got[kindPing] != maxShareNetworks+3 {
		t.Errorf("measured %v pings from %d networks, want every one", got[kindPing], maxShareNetworks+3)
	}
}
