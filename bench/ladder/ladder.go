package ladder

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/procfs"
	"github.com/moonbridge/moonbridge/bench/stats"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// Scenarios, in the order a ladder runs them.
var Scenarios = []string{"idle", "play", "join"}

// fdSlack is what the generator holds besides sessions: listeners, /proc files, stdio.
const fdSlack = 64

// Config is one scenario's ladder against one relay.
type Config struct {
	Scenario         string
	Counts           []int // strictly increasing
	Window           time.Duration
	Interval         time.Duration // a window is cut into these; medians are over them
	Settle           time.Duration // idle and play: after the logins, before the window
	JoinRate         float64       // join: logins started per second
	LoginConcurrency int
	DirectPlayers    int // straight to the backend, for the comparison round trips
	Criteria         Criteria
	Proxy, Direct    client.Dialer
	PID              int    // the relay's process
	FDLimit          uint64 // the generator's RLIMIT_NOFILE
	Progress         io.Writer
}

// Result is one scenario's ladder.
type Result struct {
	Scenario   string `json:"scenario"`
	Supported  int    `json:"supported_players"` // the largest count that passed; 0 if none did
	Stop       string `json:"stop"`              // why the ladder ended
	BaseRSSKiB int64  `json:"base_rss_kib"`      // the relay before any player
	Steps      []Step `json:"steps"`
}

// Step is one count: what was measured, the verdict and what the relay used.
type Step struct {
	Measured
	Verdict    Verdict  `json:"verdict"`
	Proxy      ProxyUse `json:"proxy"`
	WindowS    float64  `json:"window_s"`
	FirstError string   `json:"first_error,omitempty"`
}

// ProxyUse is the relay's CPU over the window and its memory and threads at the window's end.
type ProxyUse struct {
	Cores           float64 `json:"cores"`
	CPUTicks        int64   `json:"cpu_ticks"` // the 10 ms ticks the cores are counted in
	CPUPerPlayerMs  float64 `json:"cpu_ms_per_player_s"`
	RSSKiB          int64   `json:"rss_kib"`
	RSSPerPlayerKiB float64 `json:"rss_per_player_kib"` // growth over the relay before any player
	Threads         int64   `json:"threads"`
}

// PacedFor is the traffic of a scenario: join players idle once they are in.
func PacedFor(scenario string) (*traffic.Paced, error) {
	if scenario == "join" {
		scenario = "idle"
	}
	return traffic.PacedByName(scenario)
}

// Run climbs the counts until the first step that does not pass. rec must be the recorder
// whose Late the fake backend reports to. The players stop when Run returns.
func Run(ctx context.Context, cfg Config, rec *Recorder) (Result, error) {
	res := Result{Scenario: cfg.Scenario, Stop: "every step passed"}
	paced, err := PacedFor(cfg.Scenario)
	if err != nil {
		return res, err
	}
	base, err := procfs.Take(cfg.PID)
	if err != nil {
		return res, err
	}
	res.BaseRSSKiB = base.RSSKiB
	fctx, stop := context.WithCancel(ctx)
	f := &fleet{ctx: fctx, rec: rec, paced: paced}
	defer func() { stop(); f.wg.Wait() }()
	f.join(ctx, joinPlan{dialer: cfg.Direct, direct: true, prefix: "direct", n: cfg.DirectPlayers, concurrency: cfg.LoginConcurrency})
	if c := rec.counts(); c != (failureCounts{}) {
		return res, fmt.Errorf("the direct players did not all join the fake backend: %s", rec.firstError())
	}
	have := 0
	for _, count := range cfg.Counts {
		st, err := runStep(ctx, cfg, f, have, count, base)
		if err != nil {
			return res, err
		}
		res.Steps = append(res.Steps, st)
		fmt.Fprintln(cfg.Progress, progressLine(cfg.Scenario, st))
		if st.Verdict.Result != Pass {
			res.Stop = fmt.Sprintf("%s at %d", st.Verdict.Result, count)
			break
		}
		res.Supported, have = count, count
	}
	return res, nil
}

// runStep brings the players up to count and measures one window. For join the window starts
// with the ramp and lasts as long as it does, at least cfg.Window.
func runStep(ctx context.Context, cfg Config, f *fleet, have, count int, base procfs.Sample) (Step, error) {
	st := Step{Measured: Measured{Players: count, FDsNeeded: uint64(2*(count+cfg.DirectPlayers) + fdSlack), FDLimit: cfg.FDLimit}}
	if st.FDsNeeded > st.FDLimit {
		st.Verdict = Judge(st.Measured, cfg.Criteria)
		return st, nil
	}
	before := f.rec.counts()
	plan := joinPlan{dialer: cfg.Proxy, prefix: "player", first: have, n: count - have, concurrency: cfg.LoginConcurrency}
	var w *measurement
	var err error
	if cfg.Scenario == "join" {
		plan.rate = cfg.JoinRate
		var joins []time.Duration
		done := make(chan struct{})
		go func() {
			defer close(done)
			joins = f.join(ctx, plan)
		}()
		w, err = measure(ctx, cfg, f.rec, done)
		<-done
		st.Joins, st.JoinP99Ms = len(joins), ms(stats.Percentile(joins, 99))
	} else {
		f.join(ctx, plan)
		if sleepUntil(ctx, time.Now().Add(cfg.Settle)) {
			w, err = measure(ctx, cfg, f.rec, nil)
		}
	}
	if err = firstErr(err, ctx.Err()); err != nil {
		return st, err
	}
	after := f.rec.counts()
	st.Closed, st.Refused, st.ConnectFailed = after.closed-before.closed, after.refused-before.refused, after.connectFailed-before.connectFailed
	st.FirstError = f.rec.firstError()
	w.fill(&st, base)
	st.Verdict = Judge(st.Measured, cfg.Criteria)
	return st, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func progressLine(scenario string, st Step) string {
	line := fmt.Sprintf("ladder %s %d: %s added p99 %.2f ms, relay %.3f cores (%d ticks), %.0f KiB/player, %d threads; generator %.2f cores, late p99 %.1f ms",
		scenario, st.Players, st.Verdict.Result, st.Verdict.AddedP99Ms, st.Proxy.Cores, st.Proxy.CPUTicks,
		st.Proxy.RSSPerPlayerKiB, st.Proxy.Threads, st.GenCores, st.LateP99Ms)
	if st.Joins > 0 {
		line += fmt.Sprintf(", join p99 %.0f ms", st.JoinP99Ms)
	}
	for _, r := range st.Verdict.Reasons {
		line += "; " + r
	}
	return line
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
