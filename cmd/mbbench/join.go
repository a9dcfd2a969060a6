package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/bench/delaylink"
	"github.com/moonbridge/moonbridge/bench/jointime"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// joinFlags are mbbench join's.
type joinFlags struct {
	serve, tlsProvider    string
	rttList               string
	rtts                  []time.Duration
	paths, serveKeys      stringList
	rounds, joins, warmup int
	joinTimeout, timeout  time.Duration
	json                  bool
}

func (f *joinFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.serve, "serve", "", "the moonbridge `binary` run as the proxy (serve, edge namespace) and the bridges (client, player namespace)")
	fs.StringVar(&f.tlsProvider, "tls-provider", "", "the proxy's TLS provider, boringssl or go (default: moonbridge's)")
	fs.StringVar(&f.rttList, "rtts", "20ms,50ms,100ms", "the cells: round-trip `times` of the link, comma-separated")
	fs.Var(&f.paths, "path", "`NAME=TRANSPORT [listener.KEY=VALUE]... [bridge.KEY=VALUE]...`: a path (repeat; default raw=tcp, ws=ws, wss=wss; the first is the baseline)")
	fs.Var(&f.serveKeys, "serve-key", "`KEY.KEY=VALUE` laid over the proxy's config, VALUE YAML (repeat)")
	fs.IntVar(&f.rounds, "rounds", 8, "rounds (pairs) per cell; the starting path rotates")
	fs.IntVar(&f.joins, "joins", 5, "joins per path per round (the round's value is their median)")
	fs.IntVar(&f.warmup, "warmup", 2, "joins per path at the start of each cell, not counted")
	fs.DurationVar(&f.joinTimeout, "join-timeout", 10*time.Second, "bound of one join")
	fs.DurationVar(&f.timeout, "timeout", time.Hour, "stop the run after this long")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON instead of markdown")
}

func (f *joinFlags) check() error {
	for _, t := range strings.Split(f.rttList, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(t))
		if err != nil || d < 0 {
			return usageError("--rtts: want durations such as 20ms,50ms, got %q", f.rttList)
		}
		f.rtts = append(f.rtts, d)
	}
	switch {
	case f.serve == "":
		return usageError("give --serve bin/moonbridge")
	case f.tlsProvider != "" && f.tlsProvider != "boringssl" && f.tlsProvider != "go":
		return usageError("--tls-provider %q: want boringssl or go", f.tlsProvider)
	case f.rounds < 1 || f.joins < 1 || f.warmup < 0:
		return usageError("--rounds and --joins must be positive, --warmup not negative")
	}
	return nil
}

// joinReport is what mbbench join prints.
type joinReport struct {
	Meta    joinMeta          `json:"meta"`
	Summary jointime.Summary  `json:"summary"`
	Link    linkCounters      `json:"link"`
	Samples []jointime.Sample `json:"samples"`
}

type joinMeta struct {
	Time   string         `json:"time"`
	Kernel string         `json:"kernel"`
	CPUs   int            `json:"cpus"`
	Go     string         `json:"go"`
	Args   []string       `json:"args"`
	PIDs   map[string]int `json:"pids"`
	// LinkRealtime says whether the link's pumps ran under SCHED_FIFO (delaylink.Link.Realtime).
	LinkRealtime bool `json:"link_realtime"`
}

// linkCounters is what the link carried over the whole run, each way.
type linkCounters struct {
	PlayerToEdge delaylink.Counters `json:"player_to_edge"`
	EdgeToPlayer delaylink.Counters `json:"edge_to_player"`
}

// joinCommand: mbbench join, join time through a simulated CDN path (bench/README.md, "Join
// time").
func joinCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("join", "--serve bin/moonbridge [--path NAME=TRANSPORT ...] [flags]",
		"Join time through a simulated CDN path: the game client (this process) and the bridges in a player network namespace, the proxy and the fake backend in an edge one, joined only by a user-space link that delays each direction by RTT/2. Times each path's joins, from the TCP connect to Login Success, in rounds that alternate the paths, at each RTT. Needs root.", stdout, stderr)
	var f joinFlags
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	paths, err := parseCDNPaths(f.paths)
	if err != nil {
		return err
	}
	keys, err := parseServeKeys(f.serveKeys)
	if err != nil {
		return err
	}
	var rep joinReport
	err = withSignals(f.timeout, func(ctx context.Context) error {
		rep, err = runJoin(ctx, &f, paths, keys, stderr)
		return err
	})
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.Summary.Markdown(stdout)
	return nil
}

// runJoin opens the testbed, runs the cells and closes it.
func runJoin(ctx context.Context, f *joinFlags, paths []cdnPath, keys map[string]any, stderr io.Writer) (rep joinReport, err error) {
	stderr = &lockedWriter{w: stderr}             // the processes' output is copied in from other goroutines
	profile, err := traffic.ByName("echo", 64, 1) // 1.7.10 logins only; joins are 1.21.1
	if err != nil {
		return rep, err
	}
	bed, err := openCDNBed(ctx, cdnBedConfig{binary: f.serve, tlsProvider: f.tlsProvider, paths: paths, serveKeys: keys, rtt: f.rtts[0], profile: profile, log: stderr})
	if err != nil {
		return rep, err
	}
	defer func() { err = errors.Join(err, bed.close()) }()
	rep.Meta = joinMeta{Time: time.Now().UTC().Format(time.RFC3339), Kernel: kernelRelease(), CPUs: runtime.NumCPU(), Go: runtime.Version(), Args: os.Args[1:], PIDs: bed.pids(), LinkRealtime: bed.net.Link.Realtime()}
	writeJoinHeader(stderr, rep.Meta, paths)
	cfg := jointime.Config{
		RTTs: f.rtts, SetRTT: func(rtt time.Duration) { bed.net.SetRTT(rtt); writeLoad(stderr) }, Rounds: f.rounds, Joins: f.joins, Warmup: f.warmup,
		Timeout: f.joinTimeout, Log: stderr,
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		cfg.Paths = append(cfg.Paths, jointime.Path{Name: p.name, Dial: bed.dialer(i)})
		names[i] = p.name
	}
	rep.Samples, err = jointime.Run(ctx, cfg)
	rep.Link = linkCounters{PlayerToEdge: bed.net.Link.AtoB(), EdgeToPlayer: bed.net.Link.BtoA()}
	fmt.Fprintf(stderr, "# link: player to edge %+v\n# link: edge to player %+v\n", rep.Link.PlayerToEdge, rep.Link.EdgeToPlayer)
	if err != nil {
		return rep, err
	}
	rep.Summary = jointime.Summarize(rep.Samples, names, f.rtts)
	return rep, nil
}

// writeLoad writes the machine's load averages (the other work on it is part of a record).
func writeLoad(w io.Writer) {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(w, "# loadavg %s", b)
	}
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func writeJoinHeader(w io.Writer, m joinMeta, paths []cdnPath) {
	fmt.Fprintf(w, "mbbench %s\n", strings.Join(m.Args, " "))
	fmt.Fprintf(w, "# %s, Linux %s, %d CPUs, %s; pids %v; link pumps SCHED_FIFO: %v\n", m.Time, m.Kernel, m.CPUs, m.Go, m.PIDs, m.LinkRealtime)
	for i, p := range paths {
		fmt.Fprintf(w, "# path %s: %s to %s, listener keys %v, bridge keys %v\n", p.name, p.transport, cdnListenAddr(i), p.listener, p.bridge)
	}
}
