package suite

import (
	"context"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/upgrade"
)

// Measure is what a phase measures: Phase runs one against d, sampling pid (0 for none), and
// names its metrics; Rate is the metric whose proxy/direct ratio the run reports.
type Measure struct {
	Phase func(ctx context.Context, d client.Dialer, pid int) (map[string]float64, error)
	Rate  string
}

// Frames is the session benchmark: round trips of a traffic profile, in frames/s.
func Frames(cfg phase.Config) Measure { return measureOf(phase.FramesPerSec, phase.Run, cfg) }

// Upgrades is connection setup: sessions established and closed in a loop, in upgrades/s.
func Upgrades(cfg upgrade.Config) Measure { return measureOf(upgrade.UpgradesPerSec, upgrade.Run, cfg) }

// metered is a phase's result.
type metered interface{ Metrics() map[string]float64 }

// measureOf makes run, with its workload cfg, a Measure.
func measureOf[C any, R metered](rate string, run func(context.Context, client.Dialer, C, int) (R, error), cfg C) Measure {
	return Measure{Rate: rate, Phase: func(ctx context.Context, d client.Dialer, pid int) (map[string]float64, error) {
		res, err := run(ctx, d, cfg, pid)
		if err != nil {
			return nil, err
		}
		return res.Metrics(), nil
	}}
}

// MetricOrder lists the metrics of both measures in report order; a table shows the ones that
// have a value.
var MetricOrder = []string{
	phase.FramesPerSec, upgrade.UpgradesPerSec, phase.ProxyPerDirect, phase.P50ms, phase.P95ms, phase.P99ms,
	phase.CPUNsPerFrame, upgrade.CPUUsPerUpgrade, phase.SegsPerFrame, phase.LoginBurstMs, phase.RSSKiB,
	phase.RelayCores, phase.GenCores, phase.SwitchesPerKFrame, phase.MigrationsPerKFrame,
}
