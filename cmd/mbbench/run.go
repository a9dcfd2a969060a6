package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/suite"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// runReport is what `mbbench run --json` prints.
type runReport struct {
	Meta    meta                `json:"meta"`
	Phases  []suite.PhaseReport `json:"phases,omitempty"`
	Summary suite.Summary       `json:"summary,omitempty"`
	Idle    *phase.IdleResult   `json:"idle,omitempty"`
}

func runCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "[flags]", "One benchmark run: clients log in and play through the relay (proxy phases) and straight to the backend (direct phases), or with --mode upgrades open and close sessions in a loop; the report compares them.", stdout, stderr)
	var f runFlags
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	profile, err := f.trafficProfile()
	if err != nil {
		return err
	}
	if err := f.readToken(); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	rep, err := run(ctx, &f, profile, stderr)
	if err != nil {
		return err
	}
	return writeRunReport(stdout, f.json, rep)
}

// run starts the backend and the relay, then measures; the relay and the backend are stopped
// whatever happens.
func run(ctx context.Context, f *runFlags, profile traffic.Profile, stderr io.Writer) (rep runReport, err error) {
	sessions, err := f.loginFlags.start(stderr)
	if err != nil {
		return rep, err
	}
	if sessions != nil {
		defer func() { err = errors.Join(err, sessions.Close()) }()
	}
	cleanup, err := f.prepareServe(sessions)
	if err != nil {
		return rep, err
	}
	defer cleanup()
	r, err := openRelay(ctx, &f.targetFlags, profile, backend.Options{}, stderr)
	if err != nil {
		return rep, err
	}
	defer func() { err = errors.Join(err, r.close()) }()
	workload, shape := profile.Name(), profileShape(profile)
	if f.mode == modeUpgrades { // the backend only answers logins
		workload, shape = modeUpgrades, ""
	}
	rep.Meta = newMeta(&f.targetFlags, workload, shape, r.endpoint, r.tgt.PID(), r.be.Addr())
	rep.Meta.write(stderr)
	if f.token != "" {
		if r.proxy, err = client.WithToken(r.proxy, f.token); err != nil {
			return rep, err
		}
	}
	err = measure(ctx, f, profile, proxyDialer(r.proxy, sessions), client.TCPDialer{Addr: r.be.Addr()}, r.tgt.PID(), &rep, stderr)
	return rep, err
}

// measure runs the idle mode or the direct/proxy phases into rep.
func measure(ctx context.Context, f *runFlags, p traffic.Profile, proxy, direct client.Dialer, pid int, rep *runReport, raw io.Writer) error {
	if f.idle > 0 {
		idle, err := phase.Idle(ctx, proxy, p, f.idle, pid, f.idleSettle)
		rep.Idle = &idle
		return err
	}
	phases, err := suite.Run(ctx, f.suiteConfig(p), direct, proxy, pid, raw)
	rep.Phases, rep.Summary = phases, suite.Summarize(phases)
	return err
}

func writeRunReport(w io.Writer, asJSON bool, rep runReport) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if rep.Idle != nil {
		fmt.Fprintf(w, "idle sessions: %d, proxy RSS %d -> %d KiB, %.0f bytes per session\n",
			rep.Idle.Sessions, rep.Idle.BeforeKiB, rep.Idle.AfterKiB, rep.Idle.PerSessionB)
		return nil
	}
	rep.Summary.Markdown(w)
	return nil
}

func newLogger(w io.Writer, level string) zerolog.Logger {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		lvl = zerolog.WarnLevel
	}
	return zerolog.New(zerolog.ConsoleWriter{Out: w, NoColor: true}).Level(lvl).With().Timestamp().Logger()
}
