package ladder

import (
	"context"
	"time"

	"github.com/moonbridge/moonbridge/bench/procfs"
	"github.com/moonbridge/moonbridge/bench/stats"
)

// measurement is one step's window: its intervals, the lateness over all of them, and the
// relay and the generator sampled at both ends.
type measurement struct {
	intervals     []Interval
	late          stats.Histogram
	elapsed       time.Duration
	gen           time.Duration // the generator's CPU over the window
	before, after procfs.Sample
}

// measure runs a window of at least cfg.Window, and until `until` is closed when it is not nil,
// cutting it into intervals of cfg.Interval.
func measure(ctx context.Context, cfg Config, rec *Recorder, until <-chan struct{}) (*measurement, error) {
	m := &measurement{}
	rec.rotate() // what came before the window (logins, settling) does not count
	genBefore, err := procfs.SelfCPU()
	if err != nil {
		return nil, err
	}
	if m.before, err = procfs.Take(cfg.PID); err != nil {
		return nil, err
	}
	start := time.Now()
	ticker := time.NewTicker(cfg.Interval)
	defer ticker.Stop()
	for !m.over(start, cfg.Window, until) {
		select {
		case <-ticker.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		m.add(rec.rotate())
	}
	m.elapsed = time.Since(start)
	if m.after, err = procfs.Take(cfg.PID); err != nil {
		return nil, err
	}
	genAfter, err := procfs.SelfCPU()
	m.gen = genAfter - genBefore
	return m, err
}

// over: the window has lasted long enough and the ramp, if any, has ended.
func (m *measurement) over(start time.Time, window time.Duration, until <-chan struct{}) bool {
	if len(m.intervals) == 0 || time.Since(start) < window {
		return false
	}
	if until == nil {
		return true
	}
	select {
	case <-until:
		return true
	default:
		return false
	}
}

func (m *measurement) add(w *window) {
	m.intervals = append(m.intervals, Interval{
		ProxyP99Ms: ms(w.proxy.Percentile(99)), DirectP99Ms: ms(w.direct.Percentile(99)),
		ProxyN: w.proxy.Count(), DirectN: w.direct.Count(),
	})
	m.late.Add(&w.late)
}

// fill writes the window's numbers into the step; base is the relay before any player.
func (m *measurement) fill(st *Step, base procfs.Sample) {
	secs := m.elapsed.Seconds()
	cpu := m.after.CPU - m.before.CPU
	st.Intervals, st.WindowS = m.intervals, secs
	st.LateP99Ms = ms(m.late.Percentile(99))
	st.GenCores = m.gen.Seconds() / secs
	st.Proxy = ProxyUse{
		Cores: cpu.Seconds() / secs, CPUTicks: int64(cpu / (10 * time.Millisecond)),
		RSSKiB: m.after.RSSKiB, Threads: m.after.Threads,
		CPUPerPlayerMs:  cpu.Seconds() * 1000 / secs / float64(st.Players),
		RSSPerPlayerKiB: float64(m.after.RSSKiB-base.RSSKiB) / float64(st.Players),
	}
}
