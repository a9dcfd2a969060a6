package main

import (
	"flag"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
)

// floodFlags are mbbench flood's: the proxy (served or external), the steps, the legitimate
// players and the criteria.
type floodFlags struct {
	targetFlags
	metricsURL, configExtra       string
	classes, rates, via, legitVia string
	engine, tlsClient             string
	epollThreads                  int
	duration, warmup, cooldown    time.Duration
	hold, slowInterval            time.Duration
	maxOpen, networks             int
	players, directPlayers        int
	playersPerNetwork             int
	loginConcurrency              int
	proxyName, defences           string
	maxAdded, maxLate             time.Duration
	genShare, minAchieved         float64
	json                          bool
	svg                           string
	timeout                       time.Duration
}

func (f *floodFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.serve, "serve", "", "start this moonbridge `binary` (e.g. bin/moonbridge) as the proxy, with a config of mbbench's")
	fs.Var(&f.serveArgs, "serve-arg", "with --serve: one more `flag` for moonbridge serve (repeatable)")
	fs.StringVar(&f.tlsProvider, "tls-provider", "", "with --serve: moonbridge's TLS provider, boringssl or go")
	fs.StringVar(&f.configExtra, "config-extra", "", "with --serve: YAML `file` merged over mbbench's config (maps key by key), e.g. to switch defences")
	fs.StringVar(&f.target, "target", "", "an external TCP proxy at `ADDR` (host:port) that forwards to --backend; tcp classes only")
	fs.IntVar(&f.targetPID, "target-pid", 0, "with --target: the proxy's `PID`, for CPU, RSS and descriptors")
	fs.StringVar(&f.metricsURL, "metrics", "", "with --target: the proxy's Prometheus `URL`, if any (served moonbridge: its admin /metrics)")
	fs.StringVar(&f.backend, "backend", "127.0.0.1:25566", "fake backend listen `ADDR`; an external proxy must forward here")
	fs.StringVar(&f.logLevel, "log-level", "warn", "backend log level")
	fs.StringVar(&f.classes, "classes", strings.Join(flood.Classes, ","), "flood classes, in order (with --target the tcp ones: "+strings.Join(flood.TCPClasses, ",")+")")
	fs.StringVar(&f.rates, "rates", "1000,5000,0", "target new connections a second of the steps; 0 is the generator's top rate")
	fs.StringVar(&f.via, "via", "tcp", "how the flood reaches the listener: tcp (raw bytes), ws (a WebSocket upgrade for Minecraft bytes) or wss (TLS, then the upgrade)")
	fs.StringVar(&f.engine, "engine", flood.EngineGo, "what runs the flood's connections: go (a goroutine each, every class) or epoll (--epoll-threads threads of non-blocking sockets and canned bytes: "+strings.Join(flood.TCPClasses, ",")+","+flood.ClassTLSHello+" over tcp and ws)")
	fs.IntVar(&f.epollThreads, "epoll-threads", 1, "with --engine epoll: threads, each with its own epoll")
	fs.StringVar(&f.tlsClient, "tls-client", flood.TLSDefault, "the wss flood's TLS client: default (crypto/tls's, X25519MLKEM768), x25519 (X25519 only) or resume (X25519, resuming the proxy's last ticket)")
	fs.DurationVar(&f.duration, "duration", 8*time.Second, "flood time of a step (the measured window)")
	fs.DurationVar(&f.warmup, "warmup", 3*time.Second, "players only, before each flood: the baseline window")
	fs.DurationVar(&f.cooldown, "cooldown", 2*time.Second, "after a step's last flood connection ended, before the next step")
	fs.DurationVar(&f.hold, "hold", 10*time.Second, "a flood connection still open after this is closed by the generator")
	fs.DurationVar(&f.slowInterval, "slow-interval", time.Second, "slowtls and slowws: time between two bytes")
	fs.IntVar(&f.maxOpen, "max-open", 20000, "flood connections open at once, at most")
	fs.IntVar(&f.networks, "source-networks", 4096, "flood sources spread over this many /24s in 127.10.0.0-127.255.255.255; 1: all from one /24")
	fs.IntVar(&f.players, "players", 200, "legitimate players through the proxy, from 127.1.0.0/16 up (--players-per-network), split over --players-via")
	fs.IntVar(&f.playersPerNetwork, "players-per-network", 4, "legitimate players per /24: each player its own address, this many in each of 127.1.0.0/24, 127.1.1.0/24, ...")
	fs.StringVar(&f.legitVia, "players-via", "tcp,ws,wss", "transports of the legitimate players (with --target: tcp)")
	fs.IntVar(&f.directPlayers, "direct-players", 20, "players straight to the fake backend, whose round trips the proxy's are compared with")
	fs.IntVar(&f.loginConcurrency, "login-concurrency", 16, "legitimate logins in flight at once")
	fs.StringVar(&f.proxyName, "proxy", "", "the proxy's name in the report (default moonbridge with --serve, else target)")
	fs.StringVar(&f.defences, "defences", "default", "a label for the defences' settings in the report (on, off, stick-table, ...)")
	fs.DurationVar(&f.maxAdded, "max-added-p99", 5*time.Millisecond, "pass: legitimate p99 through the proxy minus direct, at most")
	fs.DurationVar(&f.maxLate, "max-late-p99", 20*time.Millisecond, "invalid: players' and backend's writes later than this at p99")
	fs.Float64Var(&f.genShare, "gen-max-share", 0.5, "invalid: mbbench's own CPU above this share of the machine's CPUs")
	fs.Float64Var(&f.minAchieved, "min-achieved", 0.9, "invalid: achieved rate below this share of the target")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON instead of markdown")
	fs.StringVar(&f.svg, "svg", "", "also write the plot (legit p99 and proxy CPU against flood rate, per class) to `FILE`")
	fs.DurationVar(&f.timeout, "timeout", time.Hour, "stop after this long")
}

// floodPlan is the checked command line.
type floodPlan struct {
	classes, legitVia []string
	rates             []float64
}

// parseArgs reads mbbench flood's command line into f and checks it.
func (f *floodFlags) parseArgs(args []string, stdout, stderr io.Writer) (floodPlan, error) {
	fs := newFlagSet("flood", "[flags]", "Connection floods of each class at each rate against the proxy while legitimate players play through it; per step the proxy's CPU, RSS and descriptors, the players' success and added p99, and the proxy's counters that moved (bench/README.md).", stdout, stderr)
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return floodPlan{}, err
	}
	return f.parse()
}

func (f *floodFlags) parse() (floodPlan, error) {
	var p floodPlan
	if err := f.targetFlags.check(); err != nil {
		return p, err
	}
	if f.target != "" && !flagGiven(f.classes, flood.Classes) {
		p.classes = flood.TCPClasses
	}
	if p.classes == nil {
		for _, c := range strings.Split(f.classes, ",") {
			if err := flood.CheckClass(c); err != nil {
				return p, usageError("--classes: %v", err)
			}
			p.classes = append(p.classes, c)
		}
	}
	for _, r := range strings.Split(f.rates, ",") {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || v < 0 {
			return p, usageError("--rates: want numbers, 0 or more, got %q", f.rates)
		}
		p.rates = append(p.rates, v)
	}
	p.legitVia = strings.Split(f.legitVia, ",")
	switch {
	case !slices.Contains(flood.Transports, f.via):
		return p, usageError("--via %q: want one of %v", f.via, flood.Transports)
	case f.target != "" && (f.via != flood.TransportTCP || f.legitVia != "tcp" && f.legitVia != "tcp,ws,wss"):
		return p, usageError("--target is a TCP proxy: --via tcp and players over tcp")
	case f.target == "" && (f.metricsURL != "" || f.configExtra != "" && f.callerConfig()):
		return p, usageError("--metrics is for --target; --config-extra needs mbbench's config (no --serve-arg --config)")
	case f.players < 1 || f.directPlayers < 1 || f.maxOpen < 1 || f.duration <= 0:
		return p, usageError("--players, --direct-players, --max-open and --duration must be positive")
	}
	if err := f.checkEngine(p.classes); err != nil {
		return p, err
	}
	if err := (flood.PlayerSources{PerNetwork: f.playersPerNetwork}).Check(f.players); err != nil {
		return p, usageError("--players-per-network: %v", err)
	}
	if f.target != "" {
		p.legitVia = []string{"tcp"}
	}
	return p, nil
}

// checkEngine refuses an engine that cannot send one of the classes, or an unknown TLS client,
// before any player logs in.
func (f *floodFlags) checkEngine(classes []string) error {
	if err := flood.CheckTLSClient(f.tlsClient); err != nil {
		return usageError("--tls-client: %v", err)
	}
	for _, c := range classes {
		cfg := flood.Config{Class: c, Transport: f.via, Engine: f.engine, EpollThreads: f.epollThreads}
		if err := cfg.CheckEngine(); err != nil {
			return usageError("--engine: %v", err)
		}
	}
	return nil
}

// flagGiven: the value differs from the default list.
func flagGiven(value string, def []string) bool { return value != strings.Join(def, ",") }

func (f *floodFlags) criteria() flood.Criteria {
	return flood.Criteria{MinAchieved: f.minAchieved, MaxGenCores: f.genShare * float64(runtime.NumCPU()),
		MaxLateP99Ms: ms(f.maxLate), MaxAddedP99Ms: ms(f.maxAdded)}
}

func (f *floodFlags) name() string {
	switch {
	case f.proxyName != "":
		return f.proxyName
	case f.serve != "":
		return "moonbridge"
	}
	return "target"
}
