package main

import (
	"flag"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/suite"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// runFlags are the Java MoonBridge's ProxySessionBenchmark flags plus where the relay is
// (docs/design.md, "Where this comes from").
type runFlags struct {
	targetFlags
	loginFlags
	upgradeFlags
	workloadFlags
	repeats      int
	json, direct bool

	idle       int
	idleSettle time.Duration
	timeout    time.Duration
}

// targetFlags say where the relay under test is and how clients reach it; mbbench run and
// mbbench ladder share them.
type targetFlags struct {
	transport, tlsProvider string
	target                 string
	targetPID              int
	serve                  string
	serveArgs              stringList
	backend                string
	logLevel               string
	// routesConfig, when set, writes a moonbridge config with its own routes to the backend
	// at backendAddr, given to --serve's moonbridge instead of --backend.
	routesConfig func(backendAddr string) (path string, err error)
}

func (f *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.transport, "transport", client.TransportTCP, "how clients reach the relay: tcp, ws or wss")
	fs.StringVar(&f.tlsProvider, "tls-provider", "", "with --serve: moonbridge's TLS provider, boringssl or go (default: moonbridge's)")
	fs.StringVar(&f.target, "target", "", "relay already running: `ADDR` (host:port) or ws:// / wss:// URL")
	fs.IntVar(&f.targetPID, "target-pid", 0, "with --target: the relay's `PID`, for CPU and RSS")
	fs.StringVar(&f.serve, "serve", "", "start this moonbridge `binary` (e.g. bin/moonbridge) as the relay")
	fs.Var(&f.serveArgs, "serve-arg", "with --serve: one more `flag` for moonbridge serve (repeatable)")
	fs.StringVar(&f.backend, "backend", "127.0.0.1:25566", "fake backend listen `ADDR`; relays started elsewhere must forward here")
	fs.StringVar(&f.logLevel, "log-level", "warn", "backend log level")
}

// check refuses a relay that cannot be measured, before anything starts.
func (f *targetFlags) check() error {
	switch {
	case (f.target == "") == (f.serve == ""):
		return usageError("give exactly one of --target (a running relay) and --serve (start moonbridge)")
	case f.target != "" && f.targetPID == 0:
		return usageError("--target needs --target-pid: the proxy's CPU comes from its /proc entry")
	case f.tlsProvider != "" && f.tlsProvider != "boringssl" && f.tlsProvider != "go":
		return usageError("--tls-provider %q: want boringssl or go", f.tlsProvider)
	}
	return nil
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.targetFlags.register(fs)
	f.loginFlags.register(fs)
	f.upgradeFlags.register(fs)
	f.workloadFlags.register(fs, "concurrent sessions (upgrades: workers)")
	fs.IntVar(&f.repeats, "repeats", 2, "direct/proxy phase pairs")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON instead of markdown")
	fs.BoolVar(&f.direct, "direct", true, "pair each proxy phase with a direct phase (clients straight to the backend)")
	fs.IntVar(&f.idle, "idle", 0, "memory mode: open `N` idle sessions through the relay and report its RSS growth per session")
	fs.DurationVar(&f.idleSettle, "idle-settle", 2*time.Second, "idle mode: wait this long before reading RSS")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "fail the run after this long")
}

// check refuses combinations that cannot run, before anything starts.
func (f *runFlags) check() error {
	switch {
	case f.repeats < 1:
		return usageError("--repeats must be at least 1")
	case f.idle > 0 && f.mode == modeUpgrades:
		return usageError("--idle and --mode upgrades are two different measurements: give one")
	}
	if err := f.workloadFlags.check(); err != nil {
		return err
	}
	if err := f.upgradeFlags.check(&f.targetFlags); err != nil {
		return err
	}
	if err := f.loginFlags.check(&f.targetFlags); err != nil {
		return err
	}
	return f.targetFlags.check()
}

func (f *runFlags) suiteConfig(p traffic.Profile) suite.Config {
	m := suite.Frames(f.phaseConfig(p))
	if f.mode == modeUpgrades {
		m = suite.Upgrades(f.upgradeConfig(f.connections))
	}
	return suite.Config{Measure: m, Repeats: f.repeats, Direct: f.direct}
}

// workloadFlags are the frames workload's: the sessions and their traffic (mbbench run, wire).
type workloadFlags struct {
	connections, window, burst, payload int
	messages, warmupTrips               uint64
	profile                             string
	coalesce                            bool
}

func (f *workloadFlags) register(fs *flag.FlagSet, connectionsUsage string) {
	fs.IntVar(&f.connections, "connections", 4, connectionsUsage)
	fs.Uint64Var(&f.messages, "messages", 5000, "measured round trips per session")
	fs.Uint64Var(&f.warmupTrips, "warmup", 500, "round trips per session before measuring")
	fs.IntVar(&f.payload, "payload", 1024, "echo: frame body bytes (packet id, 8-byte sequence, filler)")
	fs.IntVar(&f.window, "window", 1, "round trips in flight per session")
	fs.IntVar(&f.burst, "burst", 1, "echo: frames per round trip, sent in one write")
	fs.StringVar(&f.profile, "profile", "echo", "traffic: echo or modded")
	fs.BoolVar(&f.coalesce, "client-coalesce", false, "modded: one write per tick instead of one per packet")
}

func (f *workloadFlags) check() error {
	if f.connections < 1 || f.window < 1 || f.messages < 1 {
		return usageError("--connections, --window and --messages must be at least 1")
	}
	return nil
}

// trafficProfile is the profile --profile names, shaped by --payload and --burst.
func (f *workloadFlags) trafficProfile() (traffic.Profile, error) {
	p, err := traffic.ByName(f.profile, f.payload, f.burst)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return p, nil
}

func (f *workloadFlags) phaseConfig(p traffic.Profile) phase.Config {
	return phase.Config{
		Profile: p, Connections: f.connections, Warmup: f.warmupTrips, Messages: f.messages,
		Window: f.window, Coalesce: f.coalesce,
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return "" }

func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
