package main

import (
	"flag"
	"io"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
)

// What the player beside a fairness flood does (--probe).
const (
	probePing  = "ping"  // a server-list ping once per --probe-every
	probeLogin = "login" // an online login with an account, one after the other
)

// fairFlags are mbbench flood-fair's: moonbridge served as for mbbench flood, one attacker's
// schedule of bursts from a few sources, and one player elsewhere probing it.
type fairFlags struct {
	targetFlags
	configExtra         string
	class               string
	networks, hosts     int
	burst, every        time.Duration
	bursts              int
	rate                float64
	maxOpen             int
	hold                time.Duration
	probe               string
	probeEvery, probeAt time.Duration
	probes              int
	tail                time.Duration
	timeout             time.Duration
}

func (f *fairFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.serve, "serve", "", "start this moonbridge `binary` (e.g. bin/moonbridge) with a config of mbbench flood's")
	fs.Var(&f.serveArgs, "serve-arg", "one more `flag` for moonbridge serve (repeatable)")
	fs.StringVar(&f.configExtra, "config-extra", "", "YAML `file` merged over mbbench's config (maps key by key)")
	fs.StringVar(&f.backend, "backend", "127.0.0.1:0", "fake backend listen `ADDR`")
	fs.StringVar(&f.logLevel, "log-level", "warn", "backend log level")
	fs.StringVar(&f.class, "class", flood.ClassIdle, "the attacker's flood class (mbbench flood's, or noaccount: online logins without an account)")
	fs.IntVar(&f.networks, "source-networks", 1, "the attacker's /24s, from 127.10.0.0 up")
	fs.IntVar(&f.hosts, "source-hosts", 1, "the attacker's addresses in each /24, .1 up (0: all 254)")
	fs.DurationVar(&f.burst, "burst", 1500*time.Millisecond, "length of one burst of the attacker")
	fs.DurationVar(&f.every, "every", 48*time.Second, "time from the start of one burst to the next")
	fs.IntVar(&f.bursts, "bursts", 3, "bursts in the run")
	fs.Float64Var(&f.rate, "rate", 2500, "new connections a second within a burst")
	fs.IntVar(&f.maxOpen, "max-open", 5000, "the attacker's connections open at once, at most")
	fs.DurationVar(&f.hold, "hold", time.Second, "an attacker's connection still open after this is closed")
	fs.StringVar(&f.probe, "probe", probePing, "what the player (127.2.0.1) does: ping (the flood host's server list, once per --probe-every) or login (online logins one after the other)")
	fs.DurationVar(&f.probeEvery, "probe-every", time.Second, "time from the start of one probe to the next (a login that takes longer delays the next)")
	fs.DurationVar(&f.probeAt, "probe-from", 0, "first probe this long after the first burst started")
	fs.IntVar(&f.probes, "probes", 0, "probes in the run; 0: until the last burst ended and --tail passed")
	fs.DurationVar(&f.tail, "tail", 5*time.Second, "keep sampling this long after the last burst")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Minute, "stop after this long")
}

func (f *fairFlags) parseArgs(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("flood-fair", "[flags]", "One attacker (an address, a /24, or many) floods moonbridge in bursts while a player elsewhere pings it or logs in online; once a second the attack mode is read from /metrics (bench/README.md, \"Fairness\").", stdout, stderr)
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return f.check()
}

func (f *fairFlags) check() error {
	switch {
	case f.serve == "" || f.callerConfig():
		return usageError("--serve is required, with mbbench's config (no --serve-arg --config): the attack mode is read at its admin listener")
	case flood.CheckClass(f.class) != nil:
		return usageError("--class: %v", flood.CheckClass(f.class))
	case (flood.Sources{Networks: f.networks, Hosts: f.hosts}).Check() != nil:
		return usageError("--source-networks/--source-hosts: %v", (flood.Sources{Networks: f.networks, Hosts: f.hosts}).Check())
	case f.burst <= 0 || f.every < f.burst || f.bursts < 1 || f.rate < 0 || f.maxOpen < 1 || f.hold <= 0:
		return usageError("want --burst, --bursts, --max-open, --hold positive, --every at least --burst, --rate 0 or more")
	case f.probe != probePing && f.probe != probeLogin:
		return usageError("--probe %q: want ping or login", f.probe)
	case f.probeEvery <= 0 || f.probes < 0 || f.probeAt < 0 || f.tail < 0:
		return usageError("want --probe-every positive, --probes, --probe-from and --tail 0 or more")
	}
	f.transport = flood.TransportTCP
	return nil
}

// end is how long after the first burst's start the run samples: to the last burst's end plus
// the tail.
func (f *fairFlags) end() time.Duration {
	return time.Duration(f.bursts-1)*f.every + f.burst + f.tail
}
