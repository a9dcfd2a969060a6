package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/bench/ladder"
)

// ladderFlags are mbbench ladder's: the relay as mbbench run takes it, the ladder's steps and
// the pass and invalid criteria.
type ladderFlags struct {
	targetFlags
	relay                    string
	scenarios, counts        string
	window, interval, settle time.Duration
	joinRate                 float64
	loginConcurrency         int
	directPlayers            int
	maxAdded, maxJoin        time.Duration
	maxLate                  time.Duration
	genShare                 float64
	json                     bool
	svg                      string
	timeout                  time.Duration
}

func (f *ladderFlags) register(fs *flag.FlagSet) {
	f.targetFlags.register(fs)
	fs.StringVar(&f.relay, "relay", "", "the relay's name in tables and the plot (default moonbridge[-PROVIDER] with --serve, else target)")
	fs.StringVar(&f.scenarios, "scenarios", strings.Join(ladder.Scenarios, ","), "scenarios to climb, in order: idle, play, join")
	fs.StringVar(&f.counts, "counts", "100,250,500,1000,2000,4000,8000,16000", "player counts of the steps, increasing")
	fs.DurationVar(&f.window, "window", 15*time.Second, "measured time of a step (join: at least this, and the whole ramp)")
	fs.DurationVar(&f.interval, "interval", 5*time.Second, "a window is cut into intervals; criteria are medians over them")
	fs.DurationVar(&f.settle, "settle", 2*time.Second, "idle and play: wait after the new players logged in, before the window")
	fs.Float64Var(&f.joinRate, "join-rate", 50, "join: logins started per second")
	fs.IntVar(&f.loginConcurrency, "login-concurrency", 64, "logins in flight at once")
	fs.IntVar(&f.directPlayers, "direct-players", 50, "players straight to the fake backend, whose keepalives are the direct round trips")
	fs.DurationVar(&f.maxAdded, "max-added-p99", 5*time.Millisecond, "pass: keepalive p99 through the relay minus direct, at most")
	fs.DurationVar(&f.maxJoin, "max-join-p99", time.Second, "pass (join): dial to the end of the login burst at p99, at most")
	fs.DurationVar(&f.maxLate, "max-late-p99", 20*time.Millisecond, "invalid: the generator's and backend's writes later than this at p99")
	fs.Float64Var(&f.genShare, "gen-max-share", 0.35, "invalid: mbbench's own CPU above this share of the machine's CPUs")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON instead of markdown")
	fs.StringVar(&f.svg, "svg", "", "also write the plot (CPU and RSS per player against players) to `FILE`")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Hour, "stop the ladder after this long")
}

// parsed is the checked command line.
type parsed struct {
	scenarios []string
	counts    []int
}

func (f *ladderFlags) parse() (parsed, error) {
	var p parsed
	if err := f.targetFlags.check(); err != nil {
		return p, err
	}
	for _, s := range strings.Split(f.scenarios, ",") {
		if !slices.Contains(ladder.Scenarios, s) {
			return p, usageError("--scenarios: %q is not one of %v", s, ladder.Scenarios)
		}
		p.scenarios = append(p.scenarios, s)
	}
	for _, c := range strings.Split(f.counts, ",") {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 || (len(p.counts) > 0 && n <= p.counts[len(p.counts)-1]) {
			return p, usageError("--counts: want increasing positive numbers, got %q", f.counts)
		}
		p.counts = append(p.counts, n)
	}
	switch {
	case f.interval <= 0 || f.window < f.interval:
		return p, usageError("--interval must be positive and at most --window")
	case f.joinRate <= 0 || f.loginConcurrency < 1 || f.directPlayers < 1:
		return p, usageError("--join-rate, --login-concurrency and --direct-players must be positive")
	}
	return p, nil
}

func (f *ladderFlags) criteria() ladder.Criteria {
	return ladder.Criteria{
		MaxAddedP99Ms: ms(f.maxAdded), MaxJoinP99Ms: ms(f.maxJoin), MaxLateP99Ms: ms(f.maxLate),
		MaxGenCores: f.genShare * float64(runtime.NumCPU()),
	}
}

func (f *ladderFlags) settings() ladder.Settings {
	return ladder.Settings{WindowS: f.window.Seconds(), IntervalS: f.interval.Seconds(), JoinRate: f.joinRate, DirectPlayers: f.directPlayers}
}

func (f *ladderFlags) relayName() string {
	switch {
	case f.relay != "":
		return f.relay
	case f.serve == "":
		return "target"
	case f.tlsProvider != "":
		return fmt.Sprintf("moonbridge-%s", f.tlsProvider)
	}
	return "moonbridge"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
