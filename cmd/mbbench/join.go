package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/bench/delaylink"
	"github.com/moonbridge/moonbridge/bench/jointime"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// joinFlags are mbbench join's.
type joinFlags struct {
	cdnFlags
	rttList               string
	rtts                  []time.Duration
	rounds, joins, warmup int
	joinTimeout           time.Duration
	oneWrite              bool
}

func (f *joinFlags) register(fs *flag.FlagSet) {
	f.cdnFlags.register(fs, defaultCDNPaths)
	fs.StringVar(&f.rttList, "rtts", "20ms,50ms,100ms", "the cells: round-trip `times` of the link, comma-separated")
	fs.IntVar(&f.rounds, "rounds", 8, "rounds (pairs) per cell; the starting path rotates")
	fs.IntVar(&f.joins, "joins", 5, "joins per path per round (the round's value is their median)")
	fs.IntVar(&f.warmup, "warmup", 2, "joins per path at the start of each cell, not counted")
	fs.DurationVar(&f.joinTimeout, "join-timeout", 10*time.Second, "bound of one join")
	fs.BoolVar(&f.oneWrite, "one-write", false, "the game client writes the handshake and Login Start in one write (vanilla: two packets, each flushed)")
}

func (f *joinFlags) check() error {
	for _, t := range strings.Split(f.rttList, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(t))
		if err != nil || d < 0 {
			return usageError("--rtts: want durations such as 20ms,50ms, got %q", f.rttList)
		}
		f.rtts = append(f.rtts, d)
	}
	if f.rounds < 1 || f.joins < 1 || f.warmup < 0 {
		return usageError("--rounds and --joins must be positive, --warmup not negative")
	}
	return f.cdnFlags.check()
}

// joinReport is what mbbench join prints.
type joinReport struct {
	Meta    cdnMeta           `json:"meta"`
	Summary jointime.Summary  `json:"summary"`
	Link    linkCounters      `json:"link"`
	Samples []jointime.Sample `json:"samples"`
}

// linkCounters is what the link carried over the whole run, each way.
type linkCounters struct {
	PlayerToEdge delaylink.Counters `json:"player_to_edge"`
	EdgeToPlayer delaylink.Counters `json:"edge_to_player"`
}

// joinCommand: mbbench join, join time through a simulated CDN path (bench/README.md, "Join
// time"). stderr takes the processes' output and mbbench's own lines from several goroutines:
// it must be safe for that, as a file is.
func joinCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("join", "--serve bin/moonbridge [--path NAME=TRANSPORT ...] [flags]",
		"Join time through a simulated CDN path: the game client (this process) and the bridges in a player network namespace, the proxy and the fake backend in an edge one, joined only by a user-space link that delays each direction by RTT/2. Times each path's joins, from the TCP connect to Login Success, in rounds that alternate the paths, at each RTT. Needs root.", stdout, stderr)
	var f joinFlags
	if err := parseChecked(fs, &f, args); err != nil {
		return err
	}
	return f.measure(stdout, func(ctx context.Context) (any, func(io.Writer), error) {
		rep, err := runJoin(ctx, &f, stderr)
		return rep, rep.Summary.Markdown, err
	})
}

// runJoin opens the testbed, runs the cells and closes it.
func runJoin(ctx context.Context, f *joinFlags, stderr io.Writer) (rep joinReport, err error) {
	profile, err := traffic.ByName("echo", 64, 1) // 1.7.10 logins only; joins are 1.21.1
	if err != nil {
		return rep, err
	}
	bed, err := openCDNBed(ctx, f.bedConfig(f.paths, f.rtts[0], profile, stderr))
	if err != nil {
		return rep, err
	}
	defer func() { err = errors.Join(err, bed.close()) }()
	rep.Meta = newCDNMeta()
	rep.Meta.PIDs, rep.Meta.LinkRealtime = bed.pids(), bed.net.Link.Realtime()
	writeJoinHeader(stderr, rep.Meta, f.paths)
	cfg := jointime.Config{
		RTTs: f.rtts, SetRTT: func(rtt time.Duration) { bed.net.SetRTT(rtt); writeLoad(stderr) }, Rounds: f.rounds,
		Joins: f.joins, Warmup: f.warmup, Timeout: f.joinTimeout, Log: stderr, OneWrite: f.oneWrite,
	}
	names := make([]string, len(f.paths))
	for i, p := range f.paths {
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

func writeJoinHeader(w io.Writer, m cdnMeta, paths []cdnPath) {
	fmt.Fprintf(w, "mbbench %s\n", strings.Join(m.Args, " "))
	fmt.Fprintf(w, "# %s, Linux %s, %d CPUs, %s; pids %v; link pumps SCHED_FIFO: %v\n", m.Time, m.Kernel, m.CPUs, m.Go, m.PIDs, m.LinkRealtime)
	for i, p := range paths {
		fmt.Fprintf(w, "# path %s: %s to %s, listener keys %v, bridge keys %v\n", p.name, p.transport, cdnListenAddr(i), p.listener, p.bridge)
	}
}
