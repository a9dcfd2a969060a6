package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sync/atomic"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/bench/handover"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
	"github.com/moonbridge/moonbridge/internal/freeport"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// handoverPingHost is the route of the connect loop's pings, to flood's sink.
const handoverPingHost = "ping.handover"

// handoverFlags are mbbench handover's flags.
type handoverFlags struct {
	serve, profile, logFile, jsonFile string
	tcp, ws, wss, perNetwork, logins  int
	stay, timeout                     time.Duration
	login                             loginFlags
	cfg                               handover.Config
}

func (f *handoverFlags) register(fs *cliflags.FlagSet) {
	fs.StringVar(&f.serve, "serve", "", "the moonbridge `binary` started, and the one each upgrade starts (required)")
	fs.StringVar(&f.profile, "profile", "play", "the players' paced profile")
	fs.IntVar(&f.tcp, "tcp", 0, "players over raw TCP")
	fs.IntVar(&f.ws, "ws", 0, "players over ws://")
	fs.IntVar(&f.wss, "wss", 0, "players over wss://")
	fs.IntVar(&f.perNetwork, "players-per-network", 8, "players per loopback /24 (from 127.1.0.0/24 upward)")
	fs.IntVar(&f.logins, "login-concurrency", 64, "logins at once")
	fs.IntVar(&f.cfg.Upgrades, "upgrades", 1, "SIGUSR2s in a row, each to the process serving then")
	fs.DurationVar(&f.cfg.Spacing, "spacing", 5*time.Second, "from one hand-over to the next signal")
	fs.DurationVar(&f.cfg.Warmup, "warmup", 5*time.Second, "after the logins, before round trips are measured")
	fs.DurationVar(&f.cfg.Window, "window", 10*time.Second, "round trips measured before the first signal, and after the last hand-over")
	fs.DurationVar(&f.cfg.ExitWait, "exit-wait", 15*time.Second, "how long the old processes are then waited for")
	fs.DurationVar(&f.cfg.HandedTimeout, "handed-timeout", 60*time.Second, "from a signal to its hand-over line, at most")
	fs.DurationVar(&f.cfg.ConnectEvery, "connect-every", 5*time.Millisecond, "the connect loop's interval: a new connection and a server-list ping")
	fs.DurationVar(&f.stay, "stay", 10*time.Minute, "moonbridge's upgrade.stay: how long sessions that cannot move stay in the old process")
	fs.DurationVar(&f.timeout, "timeout", 15*time.Minute, "the whole run, at most")
	fs.StringVar(&f.logFile, "log", "", "moonbridge's output to this `file` (default: stderr)")
	fs.StringVar(&f.jsonFile, "json", "", "also write the result as JSON to this `file`")
	f.login.register(fs.FlagSet)
}

func (f *handoverFlags) check() error {
	switch {
	case f.serve == "":
		return usageError("--serve is required")
	case f.tcp < 0 || f.ws < 0 || f.wss < 0 || f.tcp+f.ws+f.wss == 0:
		return usageError("--tcp, --ws and --wss: at least one player, none negative")
	case f.cfg.Warmup < 0:
		return usageError("--warmup must not be negative")
	case f.cfg.Upgrades < 1 || f.cfg.Window <= 0 || f.cfg.ConnectEvery <= 0 || f.cfg.HandedTimeout <= 0:
		return usageError("--upgrades, --window, --connect-every and --handed-timeout must be positive")
	}
	if err := f.login.check(&targetFlags{serve: f.serve}); err != nil {
		return err
	}
	return flood.PlayerSources{PerNetwork: f.perNetwork}.Check(f.tcp + f.ws + f.wss)
}

// handoverCommand: mbbench handover, a binary upgrade under load (bench/README.md, "Hand-over").
func handoverCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("handover", "--serve BIN [flags]", "Start moonbridge, paced players and a connect loop, upgrade it by SIGUSR2 once or several times in a row, and report what the players saw.", stdout, stderr)
	var f handoverFlags
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if _, err := raiseNoFile(uint64(2*(f.tcp+f.ws+f.wss))+floodFDSlack, stderr); err != nil {
		return err
	}
	log, closeLog, err := f.output(stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	f.cfg.Log = log
	res, err := withSignalsResult(f.timeout, func(ctx context.Context) (handover.Result, error) { return runHandover(ctx, &f, stderr) })
	return errors.Join(err, writeHandover(stdout, f.jsonFile, res))
}

// withSignalsResult is withSignals for a function with a result.
func withSignalsResult[T any](timeout time.Duration, f func(context.Context) (T, error)) (T, error) {
	var res T
	err := withSignals(timeout, func(ctx context.Context) (err error) {
		res, err = f(ctx)
		return err
	})
	return res, err
}

func (f *handoverFlags) output(stderr io.Writer) (io.Writer, func(), error) {
	if f.logFile == "" {
		return stderr, func() {}, nil
	}
	file, err := os.Create(f.logFile)
	if err != nil {
		return nil, nil, err
	}
	return file, func() { file.Close() }, nil
}

// runHandover starts the fake backend and the sink, writes moonbridge's config and runs.
func runHandover(ctx context.Context, f *handoverFlags, stderr io.Writer) (handover.Result, error) {
	paced, err := traffic.PacedByName(f.profile)
	if err != nil {
		return handover.Result{}, usageError("--profile: %v", err)
	}
	be, err := backend.ListenWith("127.0.0.1:0", paced, newLogger(stderr, "warn"), backend.Options{})
	if err != nil {
		return handover.Result{}, fmt.Errorf("fake backend: %w", err)
	}
	defer be.Close()
	sink, err := flood.ListenSink("127.0.0.1:0")
	if err != nil {
		return handover.Result{}, fmt.Errorf("sink: %w", err)
	}
	defer sink.Close()
	dir, err := tempConfigDir()
	if err != nil {
		return handover.Result{}, err
	}
	defer os.RemoveAll(dir)
	sessions, err := f.login.start(stderr)
	if err != nil {
		return handover.Result{}, err
	}
	if sessions != nil {
		defer sessions.Close()
	}
	if err := f.prepare(dir, be.Addr(), sink.Addr(), paced, sessions); err != nil {
		return handover.Result{}, err
	}
	fmt.Fprintf(stderr, "# mbbench handover: %d tcp, %d ws, %d wss players (%s), %d upgrade(s) of %s on %s\n",
		f.tcp, f.ws, f.wss, paced.Name(), f.cfg.Upgrades, f.serve, f.cfg.Addr)
	res, err := handover.Run(ctx, f.cfg)
	if n := be.Failures(); n > 0 {
		err = errors.Join(err, fmt.Errorf("the backend refused %d sessions' traffic (see its log lines)", n))
	}
	return res, err
}

// prepare fills the run's config: the listener, moonbridge's config file, the players' groups
// (logging in online at sessions when it is set).
func (f *handoverFlags) prepare(dir, backendAddr, sinkAddr string, paced *traffic.Paced, sessions *authfake.SessionServer) error {
	addr, err := freeport.Loopback()
	if err != nil {
		return err
	}
	var served servedConfig
	f.login.served(&served, sessions)
	text, err := handoverConfig(served, backendAddr, sinkAddr, f.stay)
	if err != nil {
		return err
	}
	path, err := writeConfig(dir, text)
	if err != nil {
		return err
	}
	f.cfg.Binary, f.cfg.Addr, f.cfg.Paced, f.cfg.PingHost = f.serve, addr, paced, handoverPingHost
	f.cfg.Args = []string{"serve", "--listen", addr, "--log-format", "json", "--config", path}
	f.cfg.LoginConcurrency = f.logins
	f.cfg.Groups, err = f.groups(addr, sessions)
	return err
}

// groups are the players by transport, each from its own loopback address, logging in online
// at sessions when it is set.
func (f *handoverFlags) groups(addr string, sessions *authfake.SessionServer) ([]flood.Group, error) {
	var next atomic.Uint64
	sources := flood.PlayerSources{PerNetwork: f.perNetwork}
	from := func() netip.Addr { return sources.Addr(next.Add(1) - 1) }
	var groups []flood.Group
	for _, g := range []struct {
		t string
		n int
	}{{client.TransportTCP, f.tcp}, {client.TransportWS, f.ws}, {client.TransportWSS, f.wss}} {
		if g.n == 0 {
			continue
		}
		endpoint := addr
		if g.t != client.TransportTCP {
			endpoint = g.t + "://" + addr + "/mc"
		}
		d, err := client.NewDialerFrom(g.t, endpoint, from)
		if err != nil {
			return nil, err
		}
		groups = append(groups, flood.Group{Name: g.t, Dialer: proxyDialer(d, sessions), N: g.n})
	}
	return groups, nil
}

// handoverConfig is mbbench run's served config (limits raised for players from loopback, the
// online login's session server) with the connect loop's route to the sink first, the players'
// route (auth online when served says so), the event loops' data path, upgrade.stay, and info
// lines (the hand-over's lines are at info).
func handoverConfig(served servedConfig, backendAddr, sinkAddr string, stay time.Duration) (string, error) {
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(served.text(backendAddr)), &cfg); err != nil {
		return "", err
	}
	off := map[string]any{"mode": "off"}
	players := map[string]any{"name": "players", "hosts": []string{"*"}, "backends": []string{backendAddr}, "health_check": off}
	if served.online != nil {
		players["auth"], players["forwarding"] = "online", served.online.forwarding
	}
	cfg = mergeConfig(cfg, map[string]any{
		"log":     map[string]any{"level": "info"},
		"relay":   map[string]any{"data_path": "loop"},
		"upgrade": map[string]any{"stay": stay.String()},
		"routes": []any{
			map[string]any{"name": "ping", "hosts": []string{handoverPingHost}, "backends": []string{sinkAddr}, "health_check": off},
			players,
		},
	})
	out, err := yaml.Marshal(cfg)
	return "# written by mbbench handover\n" + string(out), err
}

// writeHandover prints the result as JSON on stdout and in jsonFile if set.
func writeHandover(stdout io.Writer, jsonFile string, res handover.Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := stdout.Write(b); err != nil {
		return err
	}
	if jsonFile == "" {
		return nil
	}
	return os.WriteFile(jsonFile, b, 0o644)
}
