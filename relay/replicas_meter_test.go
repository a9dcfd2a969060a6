package relay

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
	"github.com/moonbridge/moonbridge/replicas"
	"github.com/moonbridge/moonbridge/replicas/redistest"
)

// sharedMeter is the login meter three replicas share in TestReplicasShareTheLoginMeter: a
// budget of burst + rate x t hasJoined requests in t, for all three together.
var sharedMeter = auth.MeterSettings{Rate: 4, Burst: 6, Queue: 0, MaxWait: time.Second}

// meterOutcomes counts how the logins of a drive ended.
type meterOutcomes struct {
	admitted, metered, tried atomic.Int64
	mu                       sync.Mutex
	errs                     []error
}

func (o *meterOutcomes) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errs = append(o.errs, err)
}

// startMeterReplicas runs n login proxies on one Redis and one egress address (all leave it
// empty), whose players join on sessions, and waits until each shares the meter with the
// others.
func startMeterReplicas(t *testing.T, n int, sessions *authtest.SessionServer) []loginSetup {
	t.Helper()
	redis := redistest.Start(t)
	storeLog := &logLines{}
	var setups []loginSetup
	for i := range n {
		store := replicas.New(testSettings(redis, fmt.Sprintf("meter-%d", i)), zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), storeLog)))
		setup := startLoginProxyConfig(t, true, &authtest.Backend{Forwarding: auth.ForwardBungeeCord}, func(c *Config) {
			c.Replicas = store
			c.LoginMeter = sharedMeter
			c.Routes[0].Login.Sessions.BaseURL = sessions.URL
			// the meter alone holds logins back
			c.Limits.LoginRatePerNetwork, c.Limits.LoginBurstPerNetwork = 1000, 1000
			c.Limits.ConnectionRatePerNetwork, c.Limits.ConnectionBurstPerNetwork = 1000, 1000
		}, Minecraft)
		store.Start(setup.srv.RoutePlayers, setup.srv.ShareLoginMeter)
		t.Cleanup(func() { store.Close() })
		drainBackend(t, setup.backend)
		setups = append(setups, setup)
	}
	testutil.WaitFor(t, fmt.Sprintf("the %d replicas to share the meter", n), func() bool {
		return storeLog.count(fmt.Sprintf(`"replicas":%d`, n), "shared by the replicas") == n
	})
	return setups
}

// drainBackend takes the logins the backend reports until the test ends, so that it never
// waits to report one.
func drainBackend(t *testing.T, b *authtest.Backend) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-b.Got:
			case <-done:
				return
			}
		}
	})
	t.Cleanup(func() { close(done); wg.Wait() })
}

// driveLogins logs a player in on setup every 20 ms until stop, far faster than the meter's
// share, and counts how each login ended.
func driveLogins(setup loginSetup, sessions *authtest.SessionServer, replica int, stop <-chan struct{}, out *meterOutcomes) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		out.tried.Add(1)
		if err := meteredLogin(setup.addr, authtest.Player{Name: fmt.Sprintf("P%d_%d", replica, i), Protocol: 767, Sessions: sessions}, out); err != nil {
			out.fail(fmt.Errorf("replica %d, login %d: %w", replica, i, err))
			return
		}
	}
}

// meteredLogin logs player in at addr and counts whether the backend's Login Success or the
// meter's disconnect came back.
func meteredLogin(addr string, player authtest.Player, out *meterOutcomes) error {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	pc, err := player.Login(conn, "play.example.net")
	if err != nil {
		return err
	}
	body, err := pc.ReadFrame()
	if err != nil {
		return err
	}
	switch id, fields, _ := mc.PacketID(body); {
	case id == mc.LoginSuccessID:
		out.admitted.Add(1)
	case id == mc.LoginDisconnectID && strings.Contains(string(fields), "Too many players are logging in"):
		out.metered.Add(1)
	default:
		return fmt.Errorf("read %q, want Login Success or the meter's disconnect", body)
	}
	return nil
}

// Issue 42: three replicas on one egress address spend one login meter's budget together:
// logins driven on all three far faster than the budget reach the session server at most
// burst + rate x the drive's time in all, not three times that.
func TestReplicasShareTheLoginMeter(t *testing.T) {
	const n, drive = 3, 3 * time.Second
	sessions := authtest.NewSessionServer(t)
	setups := startMeterReplicas(t, n, sessions)
	var out meterOutcomes
	stop := make(chan struct{})
	var wg sync.WaitGroup
	started := time.Now()
	for i, setup := range setups {
		wg.Go(func() { driveLogins(setup, sessions, i, stop, &out) })
	}
	time.Sleep(drive)
	close(stop)
	wg.Wait()
	took := time.Since(started)
	for _, err := range out.errs {
		t.Error(err)
	}

	requests := len(sessions.Times())
	budget := float64(sharedMeter.Burst) + sharedMeter.Rate*took.Seconds()
	t.Logf("%d logins in %v over %d replicas: %d admitted, %d metered; %d hasJoined, shared budget %.1f",
		out.tried.Load(), took.Round(time.Millisecond), n, out.admitted.Load(), out.metered.Load(), requests, budget)
	if float64(out.tried.Load()) < 3*float64(n)*budget {
		t.Fatalf("only %d logins driven: not %d times faster than the budget of %.1f", out.tried.Load(), 3*n, budget)
	}
	if float64(requests) > budget+1 { // +1: a token granted as the drive's clock stopped
		t.Errorf("the session server saw %d hasJoined in %v, over the shared budget of %.1f (each replica alone would spend %.1f)",
			requests, took.Round(time.Millisecond), budget, float64(n)*budget)
	}
	if int64(requests) != out.admitted.Load() || out.admitted.Load() < int64(sharedMeter.Burst) {
		t.Errorf("%d hasJoined, %d logins admitted: want each admitted login's one request, at least the burst of %d", requests, out.admitted.Load(), sharedMeter.Burst)
	}
}
