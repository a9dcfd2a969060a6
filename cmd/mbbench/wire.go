package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/bench/ab"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/delaylink"
	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/procfs"
	"github.com/moonbridge/moonbridge/bench/report"
	"github.com/moonbridge/moonbridge/bench/suite"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// The metrics mbbench wire adds to a phase's (frames count both directions, as phase's do).
const (
	metricBridgeCPU   = "bridge_cpu_ns_per_frame" // the path's bridge, as cpu_ns_per_frame is the proxy's
	metricBridgeCores = "bridge_cores"
	metricWireBytes   = "wire_bytes_per_frame"   // IP packets on the link, both ways, headers included
	metricTCPPayload  = "tcp_payload_per_frame"  // their TCP data: framing, TLS and Minecraft bytes
	metricWirePackets = "wire_packets_per_frame" // the link's packets, both ways, ACKs included
)

// wireColumns are the report's metrics, in order; those no phase measured are left out.
var wireColumns = []string{
	phase.FramesPerSec, phase.P50ms, phase.P99ms, phase.CPUNsPerFrame, metricBridgeCPU, metricWireBytes,
	metricTCPPayload, metricWirePackets, phase.RelayCores, metricBridgeCores, phase.GenCores, phase.RSSKiB,
}

// wireFlags are mbbench wire's.
type wireFlags struct {
	cdnFlags
	workloadFlags
	pairs int
	rtt   time.Duration
}

func (f *wireFlags) register(fs *flag.FlagSet) {
	f.cdnFlags.register(fs, []string{"ws=ws"})
	fs.IntVar(&f.pairs, "pairs", 8, "pairs; the starting path rotates, and every phase has a fresh proxy and bridge")
	fs.DurationVar(&f.rtt, "rtt", 0, "round trip of the link between the player and edge namespaces")
	f.workloadFlags.register(fs, "concurrent sessions")
}

func (f *wireFlags) check() error {
	if f.pairs < 1 || f.rtt < 0 {
		return usageError("--pairs must be at least 1, --rtt not negative")
	}
	if err := f.workloadFlags.check(); err != nil {
		return err
	}
	return f.cdnFlags.check()
}

// wireReport is what mbbench wire --json prints.
type wireReport struct {
	Meta       cdnMeta       `json:"meta"`
	Comparison ab.Comparison `json:"comparison"`
}

// wireCommand: mbbench wire, the relays' CPU per frame and the bytes on the wire of each path
// (bench/README.md, "Bytes on the wire"). stderr must take writes from several goroutines, as
// joinCommand's.
func wireCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("wire", "--serve bin/moonbridge [--path NAME=TRANSPORT ...] [flags]",
		"CPU per frame of the bridge and the proxy, and the bytes on the wire, per path of the simulated CDN path (mbbench join's namespaces and link): sessions play a traffic profile from the player namespace through the path's bridge to the proxy and the fake backend in the edge namespace, in alternating pairs, a fresh proxy and bridge for every phase. Needs root.", stdout, stderr)
	var f wireFlags
	if err := parseChecked(fs, &f, args); err != nil {
		return err
	}
	profile, err := f.trafficProfile()
	if err != nil {
		return err
	}
	w := wireRun{f: &f, profile: profile, log: stderr}
	return f.measure(stdout, func(ctx context.Context) (any, func(io.Writer), error) {
		rep, err := w.run(ctx)
		return rep, func(out io.Writer) {
			rep.Comparison.MarkdownOf(out, suite.ColumnsOf(wireColumns, rep.Comparison.Summary...))
		}, err
	})
}

// wireRun is one mbbench wire invocation.
type wireRun struct {
	f       *wireFlags
	profile traffic.Profile
	log     io.Writer
}

func (w *wireRun) run(ctx context.Context) (wireReport, error) {
	rep := wireReport{Meta: newCDNMeta()}
	fmt.Fprintf(w.log, "mbbench %s\n# %s, Linux %s, %d CPUs, %s\n", strings.Join(rep.Meta.Args, " "), rep.Meta.Time, rep.Meta.Kernel, rep.Meta.CPUs, rep.Meta.Go)
	variants := make([]ab.Variant, len(w.f.paths))
	for i, p := range w.f.paths {
		variants[i] = ab.Variant{Name: p.name}
		fmt.Fprintf(w.log, "# path %s: %s, listener keys %v, bridge keys %v\n", p.name, p.transport, p.listener, p.bridge)
	}
	results, err := ab.Run(ctx, variants, w.f.pairs, w.phase, w.log)
	if err != nil {
		return rep, err
	}
	rep.Comparison = ab.Compare(variants, results)
	return rep, nil
}

// phase measures one variant: a fresh testbed with its path alone, one phase through it.
func (w *wireRun) phase(ctx context.Context, v ab.Variant) (_ []suite.PhaseReport, err error) {
	i := slices.IndexFunc(w.f.paths, func(p cdnPath) bool { return p.name == v.Name })
	p := w.f.paths[i]
	bed, err := openCDNBed(ctx, w.f.bedConfig([]cdnPath{p}, w.f.rtt, w.profile, w.log))
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, bed.close()) }()
	fmt.Fprintf(w.log, "# %s phase %s: pids %v, link pumps SCHED_FIFO: %v\n", time.Now().UTC().Format(time.RFC3339), p.name, bed.pids(), bed.net.Link.Realtime())
	s := wireSampler{link: bed.net.Link}
	if br, ok := bed.bridges[p.name]; ok {
		s.bridgePID = br.PID()
	}
	cfg := w.f.phaseConfig(w.profile)
	cfg.Around = s.around
	res, err := phase.Run(ctx, dialerFunc(bed.dialer(0)), cfg, bed.serve.PID())
	if err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	m := res.Metrics()
	delete(m, phase.SegsPerFrame) // host-wide in mbbench's own namespace: not this path's traffic
	s.addMetrics(m, float64(res.Frames), res.Elapsed)
	report.PhaseLine(w.log, "phase "+p.name, wireColumns, m)
	return []suite.PhaseReport{{Repeat: 1, Path: suite.PathProxy, Metrics: m}}, nil
}

// wireSampler reads the bridge's CPU and the link's counters around the measured round trips.
type wireSampler struct {
	link      *delaylink.Link
	bridgePID int // 0: the path has no bridge
	bridgeCPU time.Duration
	up, down  delaylink.Counters
	err       error
}

func (s *wireSampler) around() func() {
	cpu0, err0 := s.cpu()
	up0, down0 := s.link.AtoB(), s.link.BtoA()
	return func() {
		cpu1, err1 := s.cpu()
		s.up, s.down = s.link.AtoB().Sub(up0), s.link.BtoA().Sub(down0)
		s.bridgeCPU, s.err = cpu1-cpu0, errors.Join(err0, err1)
	}
}

func (s *wireSampler) cpu() (time.Duration, error) {
	if s.bridgePID == 0 {
		return 0, nil
	}
	return procfs.TreeCPU(s.bridgePID)
}

func (s *wireSampler) addMetrics(m map[string]float64, frames float64, elapsed time.Duration) {
	m[metricWireBytes] = float64(s.up.Bytes+s.down.Bytes) / frames
	m[metricTCPPayload] = float64(s.up.TCPPayload+s.down.TCPPayload) / frames
	m[metricWirePackets] = float64(s.up.Packets+s.down.Packets) / frames
	if s.bridgePID != 0 {
		m[metricBridgeCPU] = float64(s.bridgeCPU) / frames
		m[metricBridgeCores] = s.bridgeCPU.Seconds() / elapsed.Seconds()
	}
}

// dialerFunc is a client.Dialer of a function that opens the connection.
type dialerFunc func(ctx context.Context) (net.Conn, error)

func (d dialerFunc) Dial(ctx context.Context) (client.Stream, error) { return d(ctx) }
