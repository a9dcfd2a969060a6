package suite

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/bench/upgrade"
)

// TestRunPairsPhases: with the backend standing in for the relay (this process for its PID),
// every repeat gives a direct and a proxy phase, and the proxy phase has its ratio and CPU.
func TestRunPairsPhases(t *testing.T) {
	echo, _ := traffic.NewEcho(64, 2)
	be, err := backend.Listen("127.0.0.1:0", echo, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := client.TCPDialer{Addr: be.Addr()}
	cfg := Config{Measure: Frames(phase.Config{Profile: echo, Connections: 2, Warmup: 5, Messages: 40, Window: 2}), Repeats: 2, Direct: true}
	phases, err := Run(ctx, cfg, d, d, os.Getpid(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	paths := ""
	for _, p := range phases {
		paths += p.Path[:1]
	}
	if paths != "dpdp" {
		t.Fatalf("phase paths %q, want direct, proxy per repeat", paths)
	}
	s := Summarize(phases)
	for _, name := range []string{phase.ProxyPerDirect, phase.CPUNsPerFrame, phase.RSSKiB} {
		if s[PathProxy][name].N != 2 {
			t.Errorf("proxy %s over %d phases, want 2", name, s[PathProxy][name].N)
		}
		if s[PathDirect][name].N != 0 {
			t.Errorf("direct phases report %s", name)
		}
	}
}

// A table shows the metrics some row measured: an upgrades run its upgrades/s and CPU per
// upgrade, not the frames run's columns.
func TestColumnsAreTheMeasuredMetrics(t *testing.T) {
	s := Summarize([]PhaseReport{
		{1, PathDirect, map[string]float64{upgrade.UpgradesPerSec: 900, phase.P50ms: 0.2}},
		{1, PathProxy, map[string]float64{upgrade.UpgradesPerSec: 600, phase.P50ms: 0.3, upgrade.CPUUsPerUpgrade: 80}},
	})
	got := Columns(s[PathDirect], s[PathProxy])
	if want := []string{upgrade.UpgradesPerSec, phase.P50ms, upgrade.CPUUsPerUpgrade}; !slices.Equal(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	var b strings.Builder
	s.Markdown(&b)
	if !strings.HasPrefix(b.String(), "| path | upgrades_per_s | p50_ms | cpu_us_per_upgrade |\n") || strings.Contains(b.String(), "frames_per_s") {
		t.Errorf("table:\n%s", b.String())
	}
}
