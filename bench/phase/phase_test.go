package phase

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
)

// testTimeout bounds every phase here; the workloads take milliseconds.
const testTimeout = 30 * time.Second

func startBackend(t *testing.T, p traffic.Profile) *backend.Server {
	t.Helper()
	be, err := backend.Listen("127.0.0.1:0", p, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		be.Close()
		if n := be.Failures(); n != 0 {
			t.Errorf("backend refused %d sessions", n)
		}
	})
	return be
}

func runDirect(t *testing.T, cfg Config) Result {
	t.Helper()
	be := startBackend(t, cfg.Profile)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := Run(ctx, client.TCPDialer{Addr: be.Addr()}, cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestEchoPhaseCountsEveryFrameBothWays(t *testing.T) {
	echo, err := traffic.NewEcho(64, 4)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Profile: echo, Connections: 3, Warmup: 10, Messages: 50, Window: 4}
	res := runDirect(t, cfg)
	if want := int64(3 * 50 * 4 * 2); res.Frames != want {
		t.Errorf("frames %d, want %d", res.Frames, want)
	}
	if len(res.RTT) != 3*50 || res.LoginBurst != nil {
		t.Errorf("%d round trips, login bursts %v", len(res.RTT), res.LoginBurst)
	}
	m := res.Metrics()
	if _, ok := m[CPUNsPerFrame]; ok {
		t.Error("CPU per frame reported without a process")
	}
}

func TestModdedPhaseBothClientModes(t *testing.T) {
	for _, coalesce := range []bool{false, true} {
		cfg := Config{Profile: traffic.Modded(), Connections: 2, Warmup: 20, Messages: 300, Window: 8, Coalesce: coalesce}
		res := runDirect(t, cfg)
		if want := 2 * moddedFrames(20, 300); res.Frames != want {
			t.Errorf("coalesce %v: frames %d, want %d", coalesce, res.Frames, want)
		}
		if len(res.LoginBurst) != 2 {
			t.Errorf("coalesce %v: %d login bursts, want one per session", coalesce, len(res.LoginBurst))
		}
		if _, ok := res.Metrics()[LoginBurstMs]; !ok {
			t.Error("no login_burst_ms")
		}
	}
}

// moddedFrames counts the frames of ticks first..first+n-1: three serverbound per tick plus
// the tick's answer.
func moddedFrames(first, n uint64) int64 {
	var frames int64
	for seq := first; seq < first+n; seq++ {
		_, answer := traffic.Modded().Response(nil, seq)
		frames += int64(3 + answer)
	}
	return frames
}

func TestIdleSessionsReportGrowth(t *testing.T) {
	echo, _ := traffic.NewEcho(64, 1)
	be := startBackend(t, echo)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	// This process stands in for the proxy: it holds both ends of every session.
	res, err := Idle(ctx, client.TCPDialer{Addr: be.Addr()}, echo, 20, os.Getpid(), time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 20 || res.BeforeKiB <= 0 || res.AfterKiB <= 0 {
		t.Errorf("idle result %+v", res)
	}
}

func TestRunFailsOnDialError(t *testing.T) {
	echo, _ := traffic.NewEcho(64, 1)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := Run(ctx, client.TCPDialer{Addr: "127.0.0.1:1"}, Config{Profile: echo, Connections: 1, Messages: 1, Window: 1}, 0)
	if err == nil || errors.As(err, new(*client.ValidationError)) {
		t.Errorf("err = %v, want a dial error", err)
	}
}

// TestPhaseReportsCoresAndSwitches: with this process standing in for the relay (it is the
// generator too), both shares of CPU are counted, and the scheduler's switches where the
// kernel has them (every round trip sleeps and wakes a goroutine's thread at least once).
func TestPhaseReportsCoresAndSwitches(t *testing.T) {
	echo, _ := traffic.NewEcho(64, 2)
	be := startBackend(t, echo)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := Run(ctx, client.TCPDialer{Addr: be.Addr()}, Config{Profile: echo, Connections: 2, Warmup: 10, Messages: 500, Window: 1}, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics()
	if m[GenCores] <= 0 || m[RelayCores] <= 0 {
		t.Errorf("gen_cores %v, relay_cores %v: want both above 0", m[GenCores], m[RelayCores])
	}
	if !res.Before.HasSched {
		t.Skip("kernel without per-thread sched files: switches not counted")
	}
	if m[SwitchesPerKFrame] <= 0 {
		t.Errorf("switches_per_kframe %v, want above 0", m[SwitchesPerKFrame])
	}
	if _, ok := m[MigrationsPerKFrame]; !ok {
		t.Error("no migrations_per_kframe")
	}
}

// TestAroundBracketsTheMeasuredRoundTrips: Around runs once the sessions have logged in and
// warmed up, its result once the measured round trips are over, and the time between holds
// the phase's Elapsed.
func TestAroundBracketsTheMeasuredRoundTrips(t *testing.T) {
	echo, err := traffic.NewEcho(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	var before, after time.Time
	cfg := Config{Profile: echo, Connections: 2, Warmup: 5, Messages: 20, Window: 1, Around: func() func() {
		before = time.Now()
		return func() { after = time.Now() }
	}}
	res := runDirect(t, cfg)
	if before.IsZero() || after.IsZero() || after.Sub(before) < res.Elapsed {
		t.Errorf("around ran from %v to %v, the measured round trips took %v", before, after, res.Elapsed)
	}
}
