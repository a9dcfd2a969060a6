package flood

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/moonbridge/moonbridge/bench/procfs"
)

// StepConfig is one step: a flood with the legitimate players' window around it.
type StepConfig struct {
	Flood      Config
	Warmup     time.Duration // players only, before the flood: the baseline round trips
	PID        int           // the proxy's
	MetricsURL string        // the proxy's /metrics; "" (an external proxy): no counters
	Criteria   Criteria
}

// sampleEvery is how often the proxy's RSS and descriptors are read for their peaks.
const sampleEvery = 250 * time.Millisecond

// RunStep measures one step: the players' baseline window, then the flood's window (its
// Duration: proxy CPU, the generator's CPU, the players' round trips), the peaks of the
// proxy's RSS and descriptors while the flood lasts, and the proxy's counters from before
// the flood to after its last connection ended.
func RunStep(ctx context.Context, sc StepConfig, players *Players) (Step, error) {
	st := Step{Class: sc.Flood.Class, Transport: sc.Flood.Transport, Target: sc.Flood.Rate,
		SourceNetworks: sc.Flood.Sources.Networks, WindowS: sc.Flood.Duration.Seconds()}
	players.Window()
	if !Sleep(ctx, sc.Warmup) {
		return st, ctx.Err()
	}
	st.BaselineP99Ms = ms(players.Window().proxy.Percentile(99))
	before, err := scrape(ctx, sc.MetricsURL)
	if err != nil {
		return st, err
	}
	joined := hasJoined(sc.Flood)
	w, err := startWindow(sc.PID, players)
	if err != nil {
		return st, err
	}
	done := make(chan floodDone, 1)
	go func() {
		r, err := Run(ctx, sc.Flood)
		done <- floodDone{r, err}
	}()
	peaks := watchPeaks(ctx, sc.PID, sc.Flood.Duration)
	if err := w.end(&st, players, peaks); err != nil {
		return st, err
	}
	fd := <-done
	if fd.err != nil {
		return st, fd.err
	}
	st.Flood = fd.res
	st.HasJoined = hasJoined(sc.Flood) - joined
	after, err := scrape(ctx, sc.MetricsURL)
	if err != nil {
		return st, err
	}
	st.Counters = Changes(before, after)
	st.Refused = Refusals(st.Counters)
	st.Verdict = Judge(st.Measured(), sc.Criteria)
	return st, nil
}

// hasJoined is how many hasJoined requests the fake session server has answered.
func hasJoined(cfg Config) int {
	if cfg.Sessions == nil {
		return 0
	}
	return len(cfg.Sessions.IPs())
}

type floodDone struct {
	res Result
	err error
}

func scrape(ctx context.Context, url string) (Counters, error) {
	if url == "" {
		return Counters{}, nil
	}
	return Scrape(ctx, url)
}

// window is the flood's: the proxy and the generator sampled at its start.
type window struct {
	pid    int
	start  time.Time
	proc   procfs.Sample
	gen    time.Duration
	drops  uint64
	health Health
}

func startWindow(pid int, players *Players) (*window, error) {
	w := &window{pid: pid, start: time.Now(), health: players.Health()}
	players.Window()
	var err error
	if w.proc, err = procfs.Take(pid); err != nil {
		return nil, err
	}
	if w.gen, err = procfs.SelfCPU(); err != nil {
		return nil, err
	}
	w.drops, err = procfs.ListenDrops()
	return w, err
}

// end fills what the window measured once peaks (which lasts the flood's duration) is in.
func (w *window) end(st *Step, players *Players, peaks <-chan peak) error {
	pk := <-peaks
	proc, err := procfs.Take(w.pid)
	if err != nil {
		return err
	}
	gen, err := procfs.SelfCPU()
	if err != nil {
		return err
	}
	drops, err := procfs.ListenDrops()
	if err != nil {
		return err
	}
	st.ListenDrops = drops - w.drops
	secs := time.Since(w.start).Seconds()
	rt := players.Window()
	h := players.Health()
	st.ProxyCores = (proc.CPU - w.proc.CPU).Seconds() / secs
	st.GenCores = (gen - w.gen).Seconds() / secs
	st.RSSKiB, st.FDs = max(pk.rssKiB, proc.RSSKiB), pk.fds
	st.ProxyP99Ms, st.DirectP99Ms = ms(rt.proxy.Percentile(99)), ms(rt.direct.Percentile(99))
	st.ProxyN, st.DirectN = rt.proxy.Count(), rt.direct.Count()
	st.LateP99Ms = ms(rt.late.Percentile(99))
	st.Players, st.Alive = h.Started, h.Started-h.Broken
	st.Broken, st.Corrupted = h.Broken-w.health.Broken, h.Corrupted-w.health.Corrupted
	st.FirstError = players.FirstError()
	return nil
}

// peak is the largest RSS and descriptor count seen.
type peak struct {
	rssKiB int64
	fds    int
}

// watchPeaks samples pid until d has passed, then sends the peaks.
func watchPeaks(ctx context.Context, pid int, d time.Duration) <-chan peak {
	out := make(chan peak, 1)
	go func() {
		var p peak
		end := time.Now().Add(d)
		for time.Now().Before(end) && Sleep(ctx, min(sampleEvery, time.Until(end))) {
			if s, err := procfs.Take(pid); err == nil {
				p.rssKiB = max(p.rssKiB, s.RSSKiB)
			}
			p.fds = max(p.fds, countFDs(pid))
		}
		out <- p
	}()
	return out
}

// countFDs is how many descriptors pid has open; 0 when /proc does not say.
func countFDs(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	return len(ents)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
