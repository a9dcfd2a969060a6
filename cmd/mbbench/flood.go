package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/internal/freeport"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// floodFDSlack is what mbbench holds besides flood connections and players.
const floodFDSlack = 256

// floodCommand: mbbench flood, connection floods against the proxy while players play
// (bench/README.md, "Floods").
func floodCommand(args []string, stdout, stderr io.Writer) error {
	var f floodFlags
	plan, err := f.parseArgs(args, stdout, stderr)
	if err != nil {
		return err
	}
	if err := f.fitDescriptors(stderr); err != nil {
		return err
	}
	rep := flood.Report{Proxy: f.name(), Defences: f.defences, Criteria: f.criteria()}
	err = withSignals(f.timeout, func(ctx context.Context) error { return runFlood(ctx, &f, plan, &rep, stderr) })
	return errors.Join(err, writeFloodReports(stdout, f.json, f.svg, []flood.Report{rep}))
}

// withSignals runs f with a context that ends on SIGINT, SIGTERM or after timeout.
func withSignals(timeout time.Duration, f func(context.Context) error) error {
	ctx, stop := signalContext()
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return f(ctx)
}

// fitDescriptors raises RLIMIT_NOFILE for --max-open flood connections and the players (two
// descriptors each: theirs and the fake backend's), and lowers --max-open to what the limit
// leaves, saying so: a flood that needs more open at once than that is then INVALID by its
// achieved rate.
func (f *floodFlags) fitDescriptors(stderr io.Writer) error {
	others := 2*(f.players+f.directPlayers) + floodFDSlack
	limit, err := raiseNoFile(uint64(f.maxOpen+others), stderr)
	if err != nil {
		return err
	}
	if room := int(limit) - others; room < f.maxOpen {
		if room < 1 {
			return usageError("RLIMIT_NOFILE %d leaves no room for flood connections beside %d players", limit, f.players+f.directPlayers)
		}
		fmt.Fprintf(stderr, "# --max-open lowered from %d to %d to fit RLIMIT_NOFILE\n", f.maxOpen, room)
		f.maxOpen = room
	}
	return nil
}

// runFlood starts the fake session server, the backend, the proxy and the players, then runs
// every step; everything it started is stopped whatever happens.
func runFlood(ctx context.Context, f *floodFlags, plan floodPlan, rep *flood.Report, stderr io.Writer) (err error) {
	sessions, sink, closePeers, err := listenFloodPeers()
	if err != nil {
		return err
	}
	defer closePeers()
	metricsURL, cleanup, err := f.prepareFloodServe(sessions, sink.Addr())
	if err != nil {
		return err
	}
	defer cleanup()
	paced, err := traffic.PacedByName("play")
	if err != nil {
		return err
	}
	players := flood.NewPlayers(paced)
	f.transport = client.TransportTCP
	r, err := openRelay(ctx, &f.targetFlags, paced, backend.Options{Late: players.Late}, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeFloodRelay(r, f.target != "", stderr)) }()
	m := newMeta(&f.targetFlags, "flood", fmt.Sprintf("%d players (%v) playing %s, %d direct", f.players, plan.legitVia, paced.Name(), f.directPlayers), r.endpoint, r.tgt.PID(), r.be.Addr())
	m.write(stderr)
	rep.Meta, _ = json.Marshal(m)
	groups, err := legitGroups(f, plan, r)
	if err != nil {
		return err
	}
	pctx, stopPlayers := context.WithCancel(ctx)
	defer func() { stopPlayers(); players.Wait() }()
	if err := players.Start(pctx, groups, f.loginConcurrency); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "# %d players logged in; flooding %s via %s\n", f.players, r.endpoint, f.via)
	return floodSteps(ctx, f, plan, flood.StepConfig{
		Flood: f.floodConfig(r.endpoint, sessions), Warmup: f.warmup, PID: r.tgt.PID(),
		MetricsURL: metricsURL, Criteria: rep.Criteria,
	}, players, rep, stderr)
}

// listenFloodPeers starts what a flood's routes lead to: the fake session server and the sink.
func listenFloodPeers() (*authfake.SessionServer, *flood.Sink, func(), error) {
	sessions, err := authfake.ListenSessionServer("127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("fake session server: %w", err)
	}
	sink, err := flood.ListenSink("127.0.0.1:0")
	if err != nil {
		sessions.Close()
		return nil, nil, nil, fmt.Errorf("flood sink: %w", err)
	}
	return sessions, sink, func() { sink.Close(); sessions.Close() }, nil
}

// closeFloodRelay stops the proxy and the backend. An external proxy sends the flood to the
// fake backend too (it cannot route by the handshake's host, as moonbridge routes the flood to
// the sink), and the backend refuses what is not a player: counted, not a failure. The
// players check their own bytes.
func closeFloodRelay(r *relayUnderTest, external bool, stderr io.Writer) error {
	if !external {
		return r.close()
	}
	err := stopTarget(r.tgt)
	r.be.Close()
	fmt.Fprintf(stderr, "# the fake backend refused %d connections (the flood's, through the external proxy)\n", r.be.Failures())
	return err
}

// floodSteps runs class by class, rate by rate; each step's sources follow the last one's.
func floodSteps(ctx context.Context, f *floodFlags, plan floodPlan, sc flood.StepConfig, players *flood.Players, rep *flood.Report, stderr io.Writer) error {
	for _, class := range plan.classes {
		for _, rate := range plan.rates {
			sc.Flood.Class, sc.Flood.Rate = class, rate
			st, err := flood.RunStep(ctx, sc, players)
			if err != nil {
				return fmt.Errorf("step %s at %.0f/s: %w", class, rate, err)
			}
			rep.Steps = append(rep.Steps, st)
			fmt.Fprintln(stderr, flood.ProgressLine(st))
			sc.Flood.Sources.Offset += st.Flood.Started
			if !flood.Sleep(ctx, f.cooldown) {
				return ctx.Err()
			}
		}
	}
	return nil
}

func (f *floodFlags) floodConfig(target string, sessions *authfake.SessionServer) flood.Config {
	return flood.Config{
		Transport: f.via, Target: target, Duration: f.duration, MaxOpen: f.maxOpen, Hold: f.hold,
		SlowInterval: f.slowInterval, Sources: flood.Sources{Networks: f.networks},
		Host: floodHost, OnlineHost: floodOnlineHost, WSPath: floodWSPath, TokenPath: floodWSPath,
		Sessions: sessions, Seed: uint64(time.Now().UnixNano()),
		Engine: f.engine, EpollThreads: f.epollThreads, TLSClient: f.tlsClient,
	}
}

// legitGroups splits the players over their transports, and adds the direct ones.
func legitGroups(f *floodFlags, plan floodPlan, r *relayUnderTest) ([]flood.Group, error) {
	var groups []flood.Group
	var next atomic.Uint64
	sources := flood.PlayerSources{PerNetwork: f.playersPerNetwork}
	from := func() netip.Addr { return sources.Addr(next.Add(1) - 1) }
	for i, t := range plan.legitVia {
		endpoint, err := r.tgt.Endpoint(t)
		if err != nil {
			return nil, err
		}
		d, err := client.NewDialerFrom(t, endpoint, from)
		if err != nil {
			return nil, usageError("--players-via: %v", err)
		}
		n := f.players / len(plan.legitVia)
		if i < f.players%len(plan.legitVia) {
			n++
		}
		groups = append(groups, flood.Group{Name: t, Dialer: d, N: n})
	}
	return append(groups, flood.Group{Name: "direct", Dialer: client.TCPDialer{Addr: r.be.Addr()}, N: f.directPlayers, Direct: true}), nil
}

// prepareFloodServe has --serve's moonbridge started with the flood's config (unless the
// caller gave a config of their own), and returns its /metrics URL.
func (f *floodFlags) prepareFloodServe(sessions *authfake.SessionServer, sink string) (metricsURL string, cleanup func(), err error) {
	if f.serve == "" {
		return f.metricsURL, func() {}, nil
	}
	if f.callerConfig() {
		return "", func() {}, nil
	}
	return serveFloodConfig(&f.targetFlags, f.configExtra, sessions, sink)
}

// serveFloodConfig has t's served moonbridge started with the flood's config, extra merged
// over it, and returns its admin /metrics URL; cleanup removes the config.
func serveFloodConfig(t *targetFlags, extra string, sessions *authfake.SessionServer, sink string) (metricsURL string, cleanup func(), err error) {
	admin, err := freeport.Loopback()
	if err != nil {
		return "", nil, err
	}
	dir, err := tempConfigDir()
	if err != nil {
		return "", nil, err
	}
	t.routesConfig = func(backendAddr string) (string, error) {
		return writeFloodConfig(dir, floodServed{backend: backendAddr, sink: sink, sessionServer: sessions.URL, adminAddr: admin}, extra)
	}
	return "http://" + admin + "/metrics", func() { os.RemoveAll(dir) }, nil
}

// writeFloodReports prints the reports as markdown (JSON: the first, which is all one run
// makes), and the plot when svg is set.
func writeFloodReports(stdout io.Writer, asJSON bool, svg string, reports []flood.Report) error {
	if !asJSON {
		flood.Markdown(stdout, reports)
	} else if b, err := json.MarshalIndent(reports[0], "", "  "); err != nil {
		return err
	} else if _, err := stdout.Write(append(b, '\n')); err != nil {
		return err
	}
	if svg == "" {
		return nil
	}
	var plot bytes.Buffer
	if err := flood.Plot(&plot, reports); err != nil {
		return err
	}
	return os.WriteFile(svg, plot.Bytes(), 0o644)
}
