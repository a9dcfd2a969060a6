package upgrade

import (
	"time"

	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/stats"
)

// Metric names of an upgrades phase; the setup latency percentiles keep phase's names.
const (
	UpgradesPerSec  = "upgrades_per_s"
	CPUUsPerUpgrade = "cpu_us_per_upgrade"
)

// Metrics names what the phase measured; the relay's CPU and RSS are absent without a process
// (the direct phase).
func (r Result) Metrics() map[string]float64 {
	n := float64(r.Upgrades)
	m := map[string]float64{
		UpgradesPerSec: n / r.Elapsed.Seconds(),
		phase.P50ms:    ms(stats.Percentile(r.Setup, 50)),
		phase.P95ms:    ms(stats.Percentile(r.Setup, 95)),
		phase.P99ms:    ms(stats.Percentile(r.Setup, 99)),
	}
	if r.PID != 0 {
		m[CPUUsPerUpgrade] = float64(r.After.CPU-r.Before.CPU) / float64(time.Microsecond) / n
		m[phase.RSSKiB] = float64(r.After.RSSKiB)
	}
	return m
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
