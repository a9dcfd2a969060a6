package relay

import (
	"net"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// startBackends starts n echo backends.
func startBackends(t *testing.T, n int) ([]*testBackend, []string) {
	t.Helper()
	var backends []*testBackend
	var addrs []string
	for range n {
		b := startBackend(t, false)
		backends, addrs = append(backends, b), append(addrs, b.addr())
	}
	return backends, addrs
}

// balancedProxy runs a proxy with one route over addrs balanced by balance, with no rate limit
// in the way of a test's many connections.
func balancedProxy(t *testing.T, balance pool.Balance, addrs ...string) (*Server, string) {
	t.Helper()
	return startProxy(t, func(c *Config) {
		c.Routes = routeTo(addrs...)
		c.Routes[0].Balance = balance
		c.Limits.ConnectionRate, c.Limits.ConnectionBurst = 1000, 1000
	}, Minecraft)
}

// loginTo opens a session for host through the proxy and waits until its backend echoes.
func loginTo(t *testing.T, addr, host string) net.Conn {
	t.Helper()
	conn := dialClient(t, Minecraft, addr)
	t.Cleanup(func() { conn.Close() })
	exchange(t, conn, host, 16)
	return conn
}

// Round-robin starts each session one backend further down the list.
func TestBalanceRoundRobin(t *testing.T) {
	backends, addrs := startBackends(t, 3)
	_, addr := balancedProxy(t, pool.BalanceRoundRobin, addrs...)
	for i := range 6 {
		loginTo(t, addr, "p")
		if n := backends[i%3].helloCount(); n != i/3+1 {
			t.Fatalf("session %d: backend %d has %d sessions, want %d", i, i%3, n, i/3+1)
		}
	}
}

// Round-robin still fails over: a dead backend in the rotation costs no session.
func TestBalanceRoundRobinSkipsDeadBackend(t *testing.T) {
	deadAddr := testutil.ClosedPort(t)
	backends, addrs := startBackends(t, 1)
	_, addr := balancedProxy(t, pool.BalanceRoundRobin, deadAddr, addrs[0])
	for range 4 {
		loginTo(t, addr, "p")
	}
	if n := backends[0].helloCount(); n != 4 {
		t.Errorf("the live backend got %d of 4 sessions", n)
	}
}

// Random spreads sessions over the backends (20 sessions all on one of two backends would
// happen once in half a million runs).
func TestBalanceRandom(t *testing.T) {
	backends, addrs := startBackends(t, 2)
	_, addr := balancedProxy(t, pool.BalanceRandom, addrs...)
	for range 20 {
		loginTo(t, addr, "p").Close()
	}
	if a, b := backends[0].helloCount(), backends[1].helloCount(); a+b != 20 || a == 0 || b == 0 {
		t.Errorf("random sent %d and %d of 20 sessions to the two backends", a, b)
	}
}

// Least-connections sends a session to the backend with the fewest running ones, where
// failover would pick the first again.
func TestBalanceLeastConnections(t *testing.T) {
	backends, addrs := startBackends(t, 2)
	srv, addr := balancedProxy(t, pool.BalanceLeastConnections, addrs...)
	loginTo(t, addr, "p")           // to the first: both have none
	second := loginTo(t, addr, "p") // to the second: the first has one
	if a, b := backends[0].helloCount(), backends[1].helloCount(); a != 1 || b != 1 {
		t.Fatalf("two sessions went %d/%d, want one to each", a, b)
	}
	second.Close()
	backendPool := srv.settings().router.routes[0].pool
	testutil.WaitFor(t, "the second backend's session to end", func() bool { return backendPool.Active(1) == 0 })
	loginTo(t, addr, "p")
	if b := backends[1].helloCount(); b != 2 {
		t.Errorf("with the first backend busy and the second idle the third session did not go to the second (it has %d)", b)
	}
}
