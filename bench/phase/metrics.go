package phase

import (
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// Metric names (suite.MetricOrder is the order reports show them in): the metrics of docs/design.md, "How we measure".
const (
	FramesPerSec   = "frames_per_s"
	P50ms          = "p50_ms"
	P95ms          = "p95_ms"
	P99ms          = "p99_ms"
	CPUNsPerFrame  = "cpu_ns_per_frame"
	SegsPerFrame   = "segs_per_frame"
	LoginBurstMs   = "login_burst_ms"
	RSSKiB         = "rss_kib"
	ProxyPerDirect = "proxy_direct" // set by the suite: this proxy phase's frames/s over its paired direct phase's
	RelayCores     = "relay_cores"  // the relay's CPU over the phase's wall time
	GenCores       = "gen_cores"    // mbbench's own (players and fake backend), likewise
	// SwitchesPerKFrame and MigrationsPerKFrame are the relay's threads' context switches and
	// moves between CPUs per 1000 frames, where the kernel counts them (procfs.Sched).
	SwitchesPerKFrame   = "switches_per_kframe"
	MigrationsPerKFrame = "migrations_per_kframe"
)

// Metrics names what the phase measured; metrics it could not measure (CPU and RSS without a
// process, login burst without one in the profile) are absent rather than zero.
func (r Result) Metrics() map[string]float64 {
	frames := float64(r.Frames)
	m := map[string]float64{
		FramesPerSec: frames / r.Elapsed.Seconds(),
		P50ms:        ms(stats.Percentile(r.RTT, 50)),
		P95ms:        ms(stats.Percentile(r.RTT, 95)),
		P99ms:        ms(stats.Percentile(r.RTT, 99)),
		SegsPerFrame: float64(r.After.OutSegs-r.Before.OutSegs) / frames,
		GenCores:     r.GenCPU.Seconds() / r.Elapsed.Seconds(),
	}
	if r.PID != 0 {
		m[CPUNsPerFrame] = float64(r.After.CPU-r.Before.CPU) / frames
		m[RelayCores] = (r.After.CPU - r.Before.CPU).Seconds() / r.Elapsed.Seconds()
		m[RSSKiB] = float64(r.After.RSSKiB)
	}
	if r.Before.HasSched && r.After.HasSched {
		m[SwitchesPerKFrame] = 1000 * float64(r.After.Sched.Switches-r.Before.Sched.Switches) / frames
		m[MigrationsPerKFrame] = 1000 * float64(r.After.Sched.Migrations-r.Before.Sched.Migrations) / frames
	}
	if len(r.LoginBurst) > 0 {
		bursts := make([]float64, len(r.LoginBurst))
		for i, d := range r.LoginBurst {
			bursts[i] = ms(d)
		}
		m[LoginBurstMs] = stats.Summarize(bursts).Median
	}
	return m
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
