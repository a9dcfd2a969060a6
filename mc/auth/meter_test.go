package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
)

// meteredConfig is an online login config behind a meter of its own.
func meteredConfig(t *testing.T, ss *authtest.SessionServer, set auth.MeterSettings) *auth.Config {
	cfg := onlineConfig(t, ss)
	cfg.Meter = auth.NewMeter(set, zerolog.Nop())
	return cfg
}

// TestMeterKeepsRate: 12 players who log in at once reach the session server no faster than the
// meter's burst and rate allow, counted at the fake session server, and all get in.
func TestMeterKeepsRate(t *testing.T) {
	const rate, burst, players = 10.0, 2, 12
	ss := authtest.NewSessionServer(t)
	cfg := meteredConfig(t, ss, auth.MeterSettings{Rate: rate, Burst: burst, Queue: players, MaxWait: 5 * time.Second})
	var wg sync.WaitGroup
	errs := make(chan error, players)
	for range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, _, err := tryLogin(t, cfg, authtest.Player{Name: "Alex", Protocol: 767, Sessions: ss})
			errs <- errors.Join(err, res.err)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	times := ss.Times()
	if len(times) != players {
		t.Fatalf("%d hasJoined requests, want %d", len(times), players)
	}
	// In any window from request i to request j a token bucket lets through at most
	// burst + rate x (t_j - t_i) requests; the window is widened by jitter, the time a granted
	// request may take to arrive (over 100 ms seen under -race on a loaded machine). Without the
	// meter all 12 arrive within a few tens of milliseconds, where this allows 5.
	const jitter = 300 * time.Millisecond
	if span, least := times[len(times)-1].Sub(times[0]), time.Duration((players-burst)/rate*float64(time.Second))-jitter; span < least {
		t.Fatalf("%d requests in %v, the meter needs at least %v", players, span, least)
	}
	for i := range times {
		for j := i + 1; j < len(times); j++ {
			allowed := burst + rate*(times[j].Sub(times[i])+jitter).Seconds()
			if n := float64(j - i + 1); n > allowed {
				t.Fatalf("%v requests in %v, the meter allows %.1f", n, times[j].Sub(times[i]), allowed)
			}
		}
	}
}

// TestMeterQueueFull: a player who finds the queue full (here: no queue, the burst spent) is
// refused with a disconnect that says why, and counted.
func TestMeterQueueFull(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := meteredConfig(t, ss, auth.MeterSettings{Rate: 0.01, Burst: 1, Queue: 0, MaxWait: time.Second})
	wantLoggedIn(t, cfg, ss, "Alex")
	res, pc, err := runLogin(t, cfg, authtest.Player{Name: "Steve", Protocol: 767, Sessions: ss})
	wantRefused(t, res, err, auth.OutcomeMeterRefused)
	if me := (*auth.MeterError)(nil); !errors.As(res.err, &me) || me.Reason != auth.MeterQueueFull {
		t.Fatalf("second login: %v, want the meter's queue_full refusal", res.err)
	}
	checkDisconnect(t, pc, "Too many players are logging in right now")
	if n := len(ss.Times()); n != 1 {
		t.Fatalf("%d hasJoined requests, want 1 (the refused player is never asked about)", n)
	}
	if n := ss.Joins(); n != 1 {
		t.Fatalf("%d joins, want 1: the refused player must be refused before the Encryption Request", n)
	}
	wantCount(t, cfg.Meter, "moonbridge_login_meter_refused_total", "queue_full", 1)
}

// TestMeterBacksOffOn429: a 429 with Retry-After pauses the meter (counted, once), a player
// who arrives meanwhile waits out the pause instead of being sent, and logins succeed after it.
func TestMeterBacksOffOn429(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := meteredConfig(t, ss, auth.MeterSettings{Rate: 50, Burst: 5, Queue: 5, MaxWait: 3 * time.Second})
	ss.SetStatus(http.StatusTooManyRequests)
	ss.SetRetryAfter("1")
	res, pc, err := runLogin(t, cfg, authtest.Player{Name: "Alex", Protocol: 767, Sessions: ss})
	wantRefused(t, res, err, auth.OutcomeSessionServer)
	checkDisconnect(t, pc, "cannot be reached")
	ss.SetStatus(0)
	wantLoggedIn(t, cfg, ss, "Steve")
	times := ss.Times()
	// Retry-After: 1 pauses 1 s; the doubling pause it replaces would be 2 s.
	if len(times) != 2 || times[1].Sub(times[0]) < 900*time.Millisecond || times[1].Sub(times[0]) > 1900*time.Millisecond {
		t.Fatalf("requests at %v: the second should wait out Retry-After: 1 and no more", times)
	}
	wantCount(t, cfg.Meter, "moonbridge_session_server_backoffs_total", "too_many_requests", 1)
}

// TestMeterBackoffLongerThanWait: a pause longer than max_wait refuses at once (reason backoff)
// rather than keep the player waiting for nothing; the doubling pause applies without
// Retry-After.
func TestMeterBackoffLongerThanWait(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := meteredConfig(t, ss, auth.MeterSettings{Rate: 50, Burst: 5, Queue: 5, MaxWait: 500 * time.Millisecond})
	ss.SetStatus(http.StatusServiceUnavailable)
	runLogin(t, cfg, authtest.Player{Name: "Alex", Protocol: 767, Sessions: ss}) // a 2 s pause
	ss.SetStatus(0)
	res, pc, _ := runLogin(t, cfg, authtest.Player{Name: "Steve", Protocol: 767, Sessions: ss})
	var me *auth.MeterError
	if !errors.As(res.err, &me) || me.Reason != auth.MeterBackoff {
		t.Fatalf("login during the pause: %v, want the meter's backoff refusal", res.err)
	}
	checkDisconnect(t, pc, "Too many players")
	wantCount(t, cfg.Meter, "moonbridge_session_server_backoffs_total", "server_error", 1)
}

// TestMeterBacksOffOnceOnTimeouts: five players whose requests all time out start one pause, not
// five (one count, one log line).
func TestMeterBacksOffOnceOnTimeouts(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := meteredConfig(t, ss, auth.MeterSettings{Rate: 50, Burst: 5, Queue: 5, MaxWait: 500 * time.Millisecond})
	cfg.Sessions.Timeout = 200 * time.Millisecond
	ss.SetDelay(time.Second)
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); tryLogin(t, cfg, authtest.Player{Name: "Alex", Protocol: 767, Sessions: ss}) }()
	}
	wg.Wait()
	wantCount(t, cfg.Meter, "moonbridge_session_server_backoffs_total", "timeout", 1)
}

// TestMeterConfigureKeepsBucket: a reload's Configure keeps what the bucket holds (a spent
// burst stays spent) and applies the new rate.
func TestMeterConfigureKeepsBucket(t *testing.T) {
	m := auth.NewMeter(auth.MeterSettings{Rate: 0.01, Burst: 2, Queue: 0, MaxWait: time.Second}, zerolog.Nop())
	for range 2 {
		if _, err := m.Acquire(context.Background(), netip.Prefix{}); err != nil {
			t.Fatal(err)
		}
	}
	m.Configure(auth.MeterSettings{Rate: 0.02, Burst: 2, Queue: 0, MaxWait: time.Second})
	if _, err := m.Acquire(context.Background(), netip.Prefix{}); err == nil {
		t.Fatal("the burst was spent, and Configure filled the bucket again")
	}
	m.Configure(auth.MeterSettings{Rate: 100, Burst: 2, Queue: 0, MaxWait: time.Second})
	time.Sleep(30 * time.Millisecond)
	if _, err := m.Acquire(context.Background(), netip.Prefix{}); err != nil {
		t.Fatalf("the new rate of 100/s did not apply: %v", err)
	}
}

// TestMeterStrict: strict mode lowers the burst to 1 (a saved-up burst cannot be spent at
// once), and off gives the configured burst back.
func TestMeterStrict(t *testing.T) {
	m := auth.NewMeter(auth.MeterSettings{Rate: 20, Burst: 10, Queue: 0, MaxWait: time.Second}, zerolog.Nop())
	m.SetStrict(true)
	if n := acquireAtOnce(m, 10); n != 1 {
		t.Fatalf("strict: %d requests went at once, want 1", n)
	}
	m.SetStrict(false)
	time.Sleep(600 * time.Millisecond) // 12 tokens' worth at 20/s: the bucket is full again
	if n := acquireAtOnce(m, 10); n != 10 {
		t.Fatalf("strict off: %d requests went at once, want the burst of 10", n)
	}
}

// acquireAtOnce is how many of n Acquires the meter grants without a wait (it has no queue).
func acquireAtOnce(m *auth.Meter, n int) int {
	granted := 0
	for range n {
		if _, err := m.Acquire(context.Background(), netip.Prefix{}); err == nil {
			granted++
		}
	}
	return granted
}

// TestMeterWaitsInQueue: players without a token wait for theirs instead of being refused, and
// one whose turn would pass max_wait is refused at once (reason wait).
func TestMeterWaitsInQueue(t *testing.T) {
	m := auth.NewMeter(auth.MeterSettings{Rate: 2, Burst: 1, Queue: 5, MaxWait: 1200 * time.Millisecond}, zerolog.Nop())
	if _, err := m.Acquire(context.Background(), netip.Prefix{}); err != nil { // the burst
		t.Fatal(err)
	}
	waited := make(chan error, 2)
	for range 2 { // turns at 500 and 1000 ms
		go func() { _, err := m.Acquire(context.Background(), netip.Prefix{}); waited <- err }()
	}
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	_, err := m.Acquire(context.Background(), netip.Prefix{}) // its turn would be at 1500 ms
	var me *auth.MeterError
	if !errors.As(err, &me) || me.Reason != auth.MeterWait || time.Since(start) > 200*time.Millisecond {
		t.Fatalf("third waiter: %v after %v, want the wait refusal at once", err, time.Since(start))
	}
	for range 2 {
		if err := <-waited; err != nil {
			t.Fatalf("a waiter within max_wait was refused: %v", err)
		}
	}
}

// TestMeterCloseEndsTheWaits: Close (a drain) sends a waiting login away at once with
// ErrMeterClosed, and every later one; the player reads that the server is restarting.
func TestMeterCloseEndsTheWaits(t *testing.T) {
	m := auth.NewMeter(auth.MeterSettings{Rate: 0.1, Burst: 1, Queue: 5, MaxWait: 20 * time.Second}, zerolog.Nop())
	if _, err := m.Acquire(context.Background(), netip.Prefix{}); err != nil { // the burst; the next turn is 10 s away
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { _, err := m.Acquire(context.Background(), netip.Prefix{}); waited <- err }()
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	m.Close()
	if err := <-waited; !errors.Is(err, auth.ErrMeterClosed) || time.Since(start) > time.Second {
		t.Fatalf("the waiting login: %v after %v, want ErrMeterClosed at once", err, time.Since(start))
	}
	if _, err := m.Acquire(context.Background(), netip.Prefix{}); !errors.Is(err, auth.ErrMeterClosed) {
		t.Fatalf("a login after Close: %v, want ErrMeterClosed", err)
	}
	ss := authtest.NewSessionServer(t)
	cfg := meteredConfig(t, ss, auth.MeterSettings{Rate: 50, Burst: 5, Queue: 5, MaxWait: time.Second})
	cfg.Meter.Close()
	res, pc, err := runLogin(t, cfg, authtest.Player{Name: "Steve", Protocol: 767, Sessions: ss})
	wantRefused(t, res, err, auth.OutcomeMeterRefused)
	checkDisconnect(t, pc, "The server is restarting")
}

// wantLoggedIn logs name in and fails the test unless both sides succeed.
func wantLoggedIn(t *testing.T, cfg *auth.Config, ss *authtest.SessionServer, name string) {
	t.Helper()
	if res, _, err := runLogin(t, cfg, authtest.Player{Name: name, Protocol: 767, Sessions: ss}); err != nil || res.err != nil {
		t.Fatalf("login of %s: player %v, proxy %v", name, err, res.err)
	}
}

// wantRefused checks that the proxy refused the login with outcome and the player heard of it.
func wantRefused(t *testing.T, res loginResult, playerErr error, outcome string) {
	t.Helper()
	var le *auth.LoginError
	if playerErr != nil || !errors.As(res.err, &le) || le.Outcome != outcome {
		t.Fatalf("player %v, proxy %v; want a refusal with outcome %s", playerErr, res.err, outcome)
	}
}

// wantCount checks the series of m named name whose one label is label.
func wantCount(t *testing.T, m *auth.Meter, name, label string, want float64) {
	t.Helper()
	ch := make(chan prometheus.Metric, 32)
	m.Collect(ch)
	close(ch)
	for pm := range ch {
		var out dto.Metric
		if err := pm.Write(&out); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(pm.Desc().String(), `"`+name+`"`) && len(out.GetLabel()) == 1 && out.GetLabel()[0].GetValue() == label {
			if got := out.GetCounter().GetValue(); got != want {
				t.Fatalf("%s{%s} = %v, want %v", name, label, got, want)
			}
			return
		}
	}
	t.Fatalf("no %s{%s}", name, label)
}

// TestRetryAfter: a 429's Retry-After reaches the error in seconds or as an HTTP date.
func TestRetryAfter(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	ss.SetStatus(http.StatusTooManyRequests)
	sessions := auth.SessionServer{BaseURL: ss.URL, Timeout: 2 * time.Second}
	for header, want := range map[string]time.Duration{
		"7": 7 * time.Second,
		time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat): 30 * time.Second,
		"soon": 0,
	} {
		ss.SetRetryAfter(header)
		_, err := sessions.HasJoined(context.Background(), "Alex", "hash", "")
		var se *auth.SessionServerError
		if !errors.As(err, &se) || se.Status != http.StatusTooManyRequests || se.RetryAfter > want || se.RetryAfter < want-2*time.Second {
			t.Errorf("Retry-After %q: %v (%+v), want about %v", header, err, se, want)
		}
	}
}
