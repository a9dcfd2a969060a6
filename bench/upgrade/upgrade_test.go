package upgrade

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

var short = Config{Connections: 3, Warmup: 50 * time.Millisecond, Duration: 300 * time.Millisecond}

// echoBackend is a fake backend answering logins and echoing, closed when the test ends.
func echoBackend(t *testing.T) *backend.Server {
	t.Helper()
	echo, _ := traffic.NewEcho(64, 1)
	be, err := backend.Listen("127.0.0.1:0", echo, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}

// Straight to the fake backend, with this process standing in for the relay: every counted
// upgrade has its setup time, the relay's CPU is measured, and the backend saw only
// orderly ends (a client that closes after the login answer is not bad traffic).
func TestRunCountsUpgradesInTheWindow(t *testing.T) {
	be := echoBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, client.TCPDialer{Addr: be.Addr()}, short, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if res.Upgrades == 0 || int(res.Upgrades) != len(res.Setup) {
		t.Errorf("%d upgrades, %d setup times", res.Upgrades, len(res.Setup))
	}
	if res.Elapsed <= 0 {
		t.Errorf("window of %v", res.Elapsed)
	}
	if m := res.Metrics(); m[UpgradesPerSec] <= 0 || m[CPUUsPerUpgrade] <= 0 {
		t.Errorf("metrics %v", m)
	}
	be.Close()
	if n := be.Failures(); n != 0 {
		t.Errorf("the backend counted %d sessions as bad traffic", n)
	}
}

// slowDialer stands in for a loaded machine: every dial waits before it goes on.
type slowDialer struct {
	client.Dialer
	wait time.Duration
}

func (d slowDialer) Dial(ctx context.Context) (client.Stream, error) {
	select {
	case <-time.After(d.wait):
		return d.Dialer.Dial(ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// An upgrade slower than the whole window (a short window on a loaded machine) is measured in a
// window that stays open until it ends, not reported as a run with nothing to divide by.
func TestRunWaitsForAnUpgradeLongerThanTheWindow(t *testing.T) {
	be := echoBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := Config{Connections: 1, Warmup: 10 * time.Millisecond, Duration: 20 * time.Millisecond}
	res, err := Run(ctx, slowDialer{client.TCPDialer{Addr: be.Addr()}, 150 * time.Millisecond}, cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Upgrades != 1 || res.Elapsed < 100*time.Millisecond {
		t.Errorf("%d upgrades in %v, want the one that ended after the nominal 20ms", res.Upgrades, res.Elapsed)
	}
}

// A run stopped before any upgrade ended in the window says so.
func TestRunStoppedBeforeAnyUpgradeIsErrNoUpgrade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	cfg := Config{Connections: 1, Duration: 10 * time.Millisecond}
	_, err := Run(ctx, slowDialer{client.TCPDialer{Addr: testutil.ClosedPort(t)}, time.Second}, cfg, 0)
	if !errors.Is(err, ErrNoUpgrade) {
		t.Fatalf("err = %v, want ErrNoUpgrade", err)
	}
}

// A failed upgrade stops the run and is its error.
func TestRunFailsOnAFailedUpgrade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Run(ctx, client.TCPDialer{Addr: testutil.ClosedPort(t)}, short, 0)
	var ce *client.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want the connect error", err)
	}
}
