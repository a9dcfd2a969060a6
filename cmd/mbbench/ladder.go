package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/ladder"
)

// ladderCommand: mbbench ladder, the supported-players ladder of bench/README.md.
func ladderCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ladder", "[flags]", "The supported-players ladder: paced players (idle, play, join) in steps of counts until a step fails or is invalid (bench/README.md).", stdout, stderr)
	var f ladderFlags
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := f.parse()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	top := p.counts[len(p.counts)-1]
	fdLimit, err := raiseNoFile(uint64(2*(top+f.directPlayers)+64), stderr)
	if err != nil {
		return err
	}
	if f.serve != "" {
		cleanup, err := f.serveConfig(top + f.directPlayers)
		if err != nil {
			return err
		}
		defer cleanup()
	}
	rep := ladder.Report{Relay: f.relayName(), Transport: f.transport, Criteria: f.criteria(), Settings: f.settings()}
	for _, sc := range p.scenarios {
		var res ladder.Result
		res, err = climb(ctx, &f, sc, p.counts, fdLimit, &rep, stderr)
		rep.Scenarios = append(rep.Scenarios, res)
		if err != nil {
			err = fmt.Errorf("scenario %s: %w", sc, err)
			break
		}
	}
	return errors.Join(err, writeLadder(stdout, &f, []ladder.Report{rep}))
}

// climb runs one scenario with its own fake backend and, with --serve, its own moonbridge, so
// that every scenario starts from a fresh relay.
func climb(ctx context.Context, f *ladderFlags, scenario string, counts []int, fdLimit uint64, rep *ladder.Report, stderr io.Writer) (res ladder.Result, err error) {
	paced, err := ladder.PacedFor(scenario)
	if err != nil {
		return res, err
	}
	rec := ladder.NewRecorder()
	r, err := openRelay(ctx, &f.targetFlags, paced, backend.Options{Late: rec.Late}, stderr)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, r.close()) }()
	endpoint, pid := r.endpoint, r.tgt.PID()
	if rep.Meta == nil {
		upP, upB, downP, downB := paced.Rates()
		m := newMeta(&f.targetFlags, "paced", fmt.Sprintf("%s: up %.3g packets %.0f B/s, down %.3g packets %.0f B/s per player", paced.Name(), upP, upB, downP, downB), endpoint, pid, r.be.Addr())
		m.write(stderr)
		rep.Meta, _ = json.Marshal(m)
	}
	fmt.Fprintf(stderr, "# scenario %s: %s to %s (pid %d)\n", scenario, f.transport, endpoint, pid)
	res, err = ladder.Run(ctx, ladder.Config{
		Scenario: scenario, Counts: counts, Window: f.window, Interval: f.interval, Settle: f.settle,
		JoinRate: f.joinRate, LoginConcurrency: f.loginConcurrency, DirectPlayers: f.directPlayers,
		Criteria: f.criteria(), Proxy: r.proxy, Direct: client.TCPDialer{Addr: r.be.Addr()}, PID: pid,
		FDLimit: fdLimit, Progress: stderr,
	}, rec)
	return res, err
}

// serveConfig gives a moonbridge started here a config whose connection limits fit the ladder:
// every player comes from 127.0.0.1, and the defaults allow 50 per address, 10000 in all and 5
// new connections per second per address (bursts of 10).
// A --serve-arg --config of the caller's wins.
func (f *ladderFlags) serveConfig(players int) (cleanup func(), err error) {
	if f.callerConfig() {
		return func() {}, nil
	}
	dir, err := tempConfigDir()
	if err != nil {
		return nil, err
	}
	n := 2 * players
	path, err := writeConfig(dir, fmt.Sprintf("# written by mbbench ladder: room for every player from one address\nlimits:\n"+
		"  max_connections: %d\n  max_connections_per_ip: %d\n  connection_rate_per_ip: %d\n  connection_burst_per_ip: %d\n"+
		"  max_connections_per_network: %d\n  connection_rate_per_network: %d\n  connection_burst_per_network: %d\n"+
		"  status_rate_per_network: %d\n  status_burst_per_network: %d\n  login_rate_per_network: %d\n  login_burst_per_network: %d\n",
		n, n, n, n, n, n, n, n, n, n, n))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	f.serveArgs = append(f.serveArgs, "--config", path)
	return func() { os.RemoveAll(dir) }, nil
}

// writeLadder prints the reports as markdown or JSON, and the plot with --svg.
func writeLadder(stdout io.Writer, f *ladderFlags, reports []ladder.Report) error {
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports[0]); err != nil {
			return err
		}
	} else {
		ladder.Markdown(stdout, reports)
	}
	return writePlot(f.svg, reports)
}

func writePlot(path string, reports []ladder.Report) error {
	if path == "" {
		return nil
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(ladder.Plot(out, reports), out.Close())
}
