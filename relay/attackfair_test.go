package relay

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// floodNetworks is how many /24s spreadFlood comes from: enough that the networks' capped
// shares together pass quickAttackMode's thresholds many times over.
const floodNetworks = 32

// dialAndClose opens a connection from the loopback address from, sends hello (nothing for a
// bare connect) and closes it; a failed dial is left out, as a flood tool would.
func dialAndClose(from, addr string, hello []byte) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Second}
	if conn, err := d.Dial("tcp", addr); err == nil {
		conn.Write(hello)
		conn.Close()
	}
}

// spreadFlood connects from floodNetworks /24s in turn (127.2.N.0/24, a few addresses each),
// each connection sending hello and closing, until the attack mode is on.
func spreadFlood(t *testing.T, srv *Server, addr string, hello []byte) {
	t.Helper()
	i := 0
	on := testutil.Within(testutil.WaitBound, func() bool {
		for range 20 {
			dialAndClose(fmt.Sprintf("127.2.%d.%d", i%floodNetworks, 1+i/floodNetworks%8), addr, hello)
			i++
		}
		return srv.underAttack()
	})
	if !on {
		t.Fatalf("the attack mode did not start under a flood from %d networks", floodNetworks)
	}
}

// oneAddressFlood connects from one address for d, as fast as it can, and says whether the
// attack mode was on at any measurement meanwhile.
func oneAddressFlood(srv *Server, from, addr string, d time.Duration) (sawOn bool) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for range 20 {
			dialAndClose(from, addr, nil)
		}
		sawOn = sawOn || srv.underAttack()
	}
	return sawOn
}

// Issue 39, finding 1: one address connecting far over the threshold counts only its
// network's share (at most its per-network rate), so it cannot start the attack mode, and it
// cannot keep on a mode a spread flood started.
func TestOneAddressCannotHoldAttackMode(t *testing.T) {
	t.Run("start", func(t *testing.T) {
		srv, addr := startProxy(t, func(c *Config) {
			c.Defence.AttackMode = quickAttackMode(time.Hour)
		}, Minecraft)
		if oneAddressFlood(srv, "127.0.3.1", addr, time.Second) {
			t.Fatal("one address turned the attack mode on")
		}
		time.Sleep(150 * time.Millisecond) // three more measurements
		waitForMetric(t, srv, "moonbridge_attack_mode_activations_total", nil, 0)
	})
	t.Run("keep", func(t *testing.T) {
		srv, addr := startProxy(t, func(c *Config) {
			c.Defence.AttackMode = quickAttackMode(300 * time.Millisecond)
		}, Minecraft)
		spreadFlood(t, srv, addr, nil)
		if !testutil.Within(testutil.WaitBound, func() bool { return !oneAddressFlood(srv, "127.0.3.1", addr, 200*time.Millisecond) }) {
			t.Fatal("one address kept the attack mode on after the spread flood ended")
		}
	})
}

// The defence still holds: a flood spread over many networks, each within or over its
// per-network limits, starts the attack mode at the default limits.
func TestSpreadFloodStartsAttackMode(t *testing.T) {
	srv, addr := startProxy(t, func(c *Config) {
		c.Defence.AttackMode = quickAttackMode(time.Hour)
	}, Minecraft)
	spreadFlood(t, srv, addr, nil)
	waitForMetric(t, srv, attackSeries, nil, 1)
}

// Issue 39, finding 1: in attack mode a ping for a route that keeps no answers (no
// status_cache, no last_known) gets the backend's live answer, from at most one probe of the
// backend per route per attackProbeEvery, shared by the pings meanwhile; a route whose backend
// does not answer gets the fallback.
func TestAttackModePingGetsTheLiveAnswer(t *testing.T) {
	srv, addr, backend := startAttackStatusProxy(t, "h", 0)
	spreadFlood(t, srv, addr, nil)
	start := time.Now()
	const pings = 5
	for i := range pings {
		got := askStatus(t, dialFrom(t, fmt.Sprintf("127.0.5.%d", 1+i), addr))
		if !strings.Contains(got, "up and running") {
			t.Fatalf("ping %d in attack mode: %s, want the backend's live answer", i, got)
		}
	}
	if n, bound := backend.count(), 1+int(time.Since(start)/attackProbeEvery); n > bound {
		t.Errorf("the backend was asked %d times for %d pings, want at most %d (one per %s)", n, pings, bound, attackProbeEvery)
	}
	if down := pingStatus(t, Minecraft, addr, "down.example"); !strings.Contains(jsonText(t, down), DefaultFallback().Status.MOTD) {
		t.Errorf("a route whose backend is down got %s, want the fallback", jsonText(t, down))
	}
}

// A sustained over-rate address is blocked: rateRefusalsPerStrike refusals by its
// per-address rate make one strike. An address that only goes over its rate now and then (a
// school behind one address at the bell) is not.
func TestOverRateAddressIsBlocked(t *testing.T) {
	srv, addr := startProxy(t, func(c *Config) {
		c.Defence.Block = Block{After: 2, Window: time.Minute, For: time.Minute}
	}, Minecraft)
	for range rateRefusalsPerStrike / 2 { // a busy NAT: a few times its burst
		dialAndClose("127.0.7.1", addr, nil)
	}
	for range 3 * rateRefusalsPerStrike {
		dialAndClose("127.0.6.1", addr, nil)
	}
	waitForMetric(t, srv, "moonbridge_blocked_addresses", nil, 1)
	if list := srv.BlockList(); len(list) != 1 || list[0].Network.Addr().String() != "127.0.6.1" {
		t.Errorf("block list %v, want 127.0.6.1 alone", list)
	}
}
