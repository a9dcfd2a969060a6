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

// Straight to the fake backend, with this process standing in for the relay: every counted
// upgrade has its setup time, the relay's CPU is measured, and the backend saw only
// orderly ends (a client that closes after the login answer is not bad traffic).
func TestRunCountsUpgradesInTheWindow(t *testing.T) {
	echo, _ := traffic.NewEcho(64, 1)
	be, err := backend.Listen("127.0.0.1:0", echo, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
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
