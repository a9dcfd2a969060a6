package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// fairPlayer is the probing player's address: a /24 of its own, away from the flood's
// (127.10.0.0 up) and mbbench flood's players (127.1.0.0/16).
var fairPlayer = netip.MustParseAddr("127.2.0.1")

// attackModeSeries is the gauge that is 1 while moonbridge's attack mode is on.
const attackModeSeries = "moonbridge_attack_mode"

// fairReport is one mbbench flood-fair run.
type fairReport struct {
	Meta           json.RawMessage `json:"meta"`
	Class          string          `json:"class"`
	SourceNetworks int             `json:"source_networks"`
	SourceHosts    int             `json:"source_hosts"` // per /24; 0: all 254
	Bursts         []flood.Result  `json:"bursts"`
	Samples        []fairSample    `json:"samples"`
	ModeOn         int             `json:"mode_on_samples"`
	Probe          string          `json:"probe"`
	Probes         []fairProbe     `json:"probes"`
	ProbesOK       int             `json:"probes_ok"`
	Counters       []flood.Change  `json:"counters"` // moonbridge_* counters that moved over the run
}

// fairSample is one read of the attack mode; Mode is -1 when the read failed.
type fairSample struct {
	T     float64 `json:"t_s"` // since the first burst started
	Mode  float64 `json:"attack_mode"`
	Error string  `json:"error,omitempty"`
}

// fairProbe is one ping or login of the player: OK is the sink's status (live or cached, not
// the proxy's fallback text) or a login through; Answer is anything else it got.
type fairProbe struct {
	T      float64 `json:"t_s"`
	Ms     float64 `json:"ms"`
	OK     bool    `json:"ok"`
	Answer string  `json:"answer,omitempty"`
}

// fairCommand: mbbench flood-fair (bench/README.md, "Fairness").
func fairCommand(args []string, stdout, stderr io.Writer) error {
	var f fairFlags
	if err := f.parseArgs(args, stdout, stderr); err != nil {
		return err
	}
	if _, err := raiseNoFile(uint64(f.maxOpen+floodFDSlack), stderr); err != nil {
		return err
	}
	rep := fairReport{Class: f.class, SourceNetworks: f.networks, SourceHosts: f.hosts, Probe: f.probe}
	err := withSignals(f.timeout, func(ctx context.Context) error { return runFair(ctx, &f, &rep, stderr) })
	b, jerr := json.MarshalIndent(rep, "", "  ")
	if jerr == nil {
		_, jerr = stdout.Write(append(b, '\n'))
	}
	return errors.Join(err, jerr)
}

// runFair serves moonbridge with the flood's config, then runs the bursts while the attack
// mode is sampled and the player probes; everything it started is stopped whatever happens.
func runFair(ctx context.Context, f *fairFlags, rep *fairReport, stderr io.Writer) (err error) {
	sessions, sink, closePeers, err := listenFloodPeers()
	if err != nil {
		return err
	}
	defer closePeers()
	metricsURL, cleanup, err := serveFloodConfig(&f.targetFlags, f.configExtra, sessions, sink.Addr())
	if err != nil {
		return err
	}
	defer cleanup()
	paced, err := traffic.PacedByName("play")
	if err != nil {
		return err
	}
	r, err := openRelay(ctx, &f.targetFlags, paced, backend.Options{}, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, r.close()) }()
	m := newMeta(&f.targetFlags, "flood-fair", fmt.Sprintf("%s bursts from %d /24s x %d addresses, the player %s", f.class, f.networks, f.hosts, f.probe), r.endpoint, r.tgt.PID(), r.be.Addr())
	m.write(stderr)
	rep.Meta, _ = json.Marshal(m)
	before, err := firstScrape(ctx, metricsURL)
	if err != nil {
		return err
	}
	if err := fairSchedule(ctx, f, rep, f.floodConfig(r.endpoint, sessions), metricsURL, sessions); err != nil {
		return err
	}
	after, err := flood.Scrape(ctx, metricsURL)
	rep.Counters = flood.Changes(before, after)
	fmt.Fprintf(stderr, "# attack mode on in %d of %d samples; %d of %d %s probes ok\n", rep.ModeOn, len(rep.Samples), rep.ProbesOK, len(rep.Probes), f.probe)
	return err
}

// adminWait is how long the admin listener may take to answer once the proxy's own listener
// does (the served proxy counts as started by its own listener only): on a loaded machine the
// first scrape once found it not yet listening.
const adminWait = 5 * time.Second

// firstScrape reads the counters, retrying until the admin listener answers or adminWait passed.
func firstScrape(ctx context.Context, metricsURL string) (flood.Counters, error) {
	end := time.Now().Add(adminWait)
	for {
		c, err := flood.Scrape(ctx, metricsURL)
		if err == nil || time.Now().After(end) || !flood.Sleep(ctx, 100*time.Millisecond) {
			return c, err
		}
	}
}

// fairSchedule runs the bursts, samples the attack mode once a second and has the player probe,
// from the first burst's start to the last one's end plus the tail (and the last probe's end,
// when their number is set).
func fairSchedule(ctx context.Context, f *fairFlags, rep *fairReport, cfg flood.Config, metricsURL string, sessions *authfake.SessionServer) error {
	start := time.Now()
	sctx, stopSampling := context.WithCancel(ctx)
	pctx, stopProbes := context.WithCancel(ctx)
	var sampling, probing sync.WaitGroup
	sampling.Go(func() { rep.Samples = sampleAttackMode(sctx, metricsURL, start) })
	probing.Go(func() { rep.Probes = f.runProbes(pctx, cfg.Target, sessions, start) })
	bursts, err := f.runBursts(ctx, cfg, start)
	rep.Bursts = bursts
	flood.Sleep(ctx, time.Until(start.Add(f.end())))
	if f.probes == 0 {
		stopProbes()
	}
	probing.Wait()
	stopProbes()
	stopSampling()
	sampling.Wait()
	for _, s := range rep.Samples {
		if s.Mode == 1 {
			rep.ModeOn++
		}
	}
	for _, p := range rep.Probes {
		if p.OK {
			rep.ProbesOK++
		}
	}
	return errors.Join(err, ctx.Err())
}

func (f *fairFlags) floodConfig(target string, sessions *authfake.SessionServer) flood.Config {
	return flood.Config{
		Class: f.class, Transport: flood.TransportTCP, Target: target, Rate: f.rate, Duration: f.burst,
		MaxOpen: f.maxOpen, Hold: f.hold, SlowInterval: time.Second,
		Sources: flood.Sources{Networks: f.networks, Hosts: f.hosts},
		Host:    floodHost, OnlineHost: floodOnlineHost, WSPath: floodWSPath, TokenPath: floodWSPath,
		Sessions: sessions, Seed: uint64(time.Now().UnixNano()),
	}
}

// runBursts starts a burst every f.every from start; each waits for its last connection.
func (f *fairFlags) runBursts(ctx context.Context, cfg flood.Config, start time.Time) ([]flood.Result, error) {
	var out []flood.Result
	for i := range f.bursts {
		if !flood.Sleep(ctx, time.Until(start.Add(time.Duration(i)*f.every))) {
			return out, ctx.Err()
		}
		res, err := flood.Run(ctx, cfg)
		if err != nil {
			return out, err
		}
		out = append(out, res)
		cfg.Sources.Offset += res.Started
	}
	return out, nil
}

// sampleAttackMode reads the attack mode once a second from start until ctx ends.
func sampleAttackMode(ctx context.Context, metricsURL string, start time.Time) []fairSample {
	var out []fairSample
	for i := 0; flood.Sleep(ctx, time.Until(start.Add(time.Duration(i)*time.Second))); i++ {
		v, err := flood.ScrapeValue(ctx, metricsURL, attackModeSeries)
		if ctx.Err() != nil {
			break
		}
		s := fairSample{T: time.Since(start).Seconds(), Mode: v}
		if err != nil {
			s.Mode, s.Error = -1, err.Error()
		}
		out = append(out, s)
	}
	return out
}

// runProbes has the player ping or log in once per f.probeEvery (one after the other) from
// f.probeAt, f.probes times or until ctx ends; a probe cut by ctx's end is not kept.
func (f *fairFlags) runProbes(ctx context.Context, target string, sessions *authfake.SessionServer, start time.Time) []fairProbe {
	var out []fairProbe
	rng := rand.New(rand.NewPCG(uint64(start.UnixNano()), 2))
	for i := 0; f.probes == 0 || i < f.probes; i++ {
		if !flood.Sleep(ctx, time.Until(start.Add(f.probeAt+time.Duration(i)*f.probeEvery))) {
			break
		}
		t0 := time.Now()
		p := fairProbe{T: t0.Sub(start).Seconds()}
		if f.probe == probePing {
			status, err := flood.PingStatus(ctx, fairPlayer, target, floodHost)
			p.OK = err == nil && flood.IsSinkStatus(status)
			p.Answer = pingAnswer(p.OK, status, err)
		} else {
			res := flood.OnlineLogin(ctx, fairPlayer, target, floodOnlineHost, sessions, rng)
			p.OK, p.Answer = res.Through, res.Reason
		}
		if ctx.Err() != nil {
			break
		}
		p.Ms = float64(time.Since(t0).Microseconds()) / 1000
		out = append(out, p)
	}
	return out
}

// pingAnswer is what a ping's record keeps: nothing for the sink's answer, else the text or
// the error.
func pingAnswer(ok bool, status string, err error) string {
	switch {
	case ok:
		return ""
	case err != nil:
		return err.Error()
	}
	return status
}
