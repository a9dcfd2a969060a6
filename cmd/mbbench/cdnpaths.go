package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
)

// cdnPath is one way a game client in the player namespace reaches the proxy of the edge one:
// straight over raw TCP, or through a bridge of its own (moonbridge client) over ws or wss. It
// gets a listener of its own on the proxy, so that a listener setting (early data) applies to
// this path alone; listener and bridge are keys laid over that listener's entry in the
// proxy's config and over its bridge's client: section.
type cdnPath struct {
	name, transport  string
	listener, bridge map[string]any
}

// defaultCDNPaths are raw TCP, the bridge over ws and over wss, without extra keys; raw first,
// the baseline of the differences.
var defaultCDNPaths = []string{"raw=tcp", "ws=ws", "wss=wss"}

// parseCDNPath reads `NAME=TRANSPORT [listener.KEY=VALUE]... [bridge.KEY=VALUE]...`: TRANSPORT
// tcp, ws or wss; each VALUE is YAML without spaces (true, 5s, [a,b]), KEY a key of a listeners: entry or of
// the client: section, e.g. `ws-ed=ws listener.early_data=true bridge.early_data=true`.
func parseCDNPath(spec string) (cdnPath, error) {
	name, rest, ok := strings.Cut(spec, "=")
	fields := strings.Fields(rest)
	if !ok || name == "" || len(fields) == 0 {
		return cdnPath{}, fmt.Errorf("path %q: want NAME=TRANSPORT [listener.KEY=VALUE]... [bridge.KEY=VALUE]...", spec)
	}
	p := cdnPath{name: name, transport: fields[0], listener: map[string]any{}, bridge: map[string]any{}}
	switch p.transport {
	case client.TransportTCP, client.TransportWS, client.TransportWSS:
	default:
		return cdnPath{}, fmt.Errorf("path %s: transport %q: want tcp, ws or wss", name, p.transport)
	}
	for _, f := range fields[1:] {
		if err := p.setKey(f); err != nil {
			return cdnPath{}, fmt.Errorf("path %s: %w", name, err)
		}
	}
	if p.transport == client.TransportTCP && len(p.bridge) > 0 {
		return cdnPath{}, fmt.Errorf("path %s: raw TCP has no bridge to take bridge.* keys", name)
	}
	return p, nil
}

// setKey takes one `listener.KEY=VALUE` or `bridge.KEY=VALUE`.
func (p *cdnPath) setKey(kv string) error {
	key, text, ok := strings.Cut(kv, "=")
	where, key, dotted := strings.Cut(key, ".")
	if !ok || !dotted || key == "" {
		return fmt.Errorf("%q: want listener.KEY=VALUE or bridge.KEY=VALUE", kv)
	}
	value, err := yamlValue(text)
	if err != nil {
		return fmt.Errorf("%q: %w", kv, err)
	}
	switch where {
	case "listener":
		p.listener[key] = value
	case "bridge":
		p.bridge[key] = value
	default:
		return fmt.Errorf("%q: want listener.KEY=VALUE or bridge.KEY=VALUE", kv)
	}
	return nil
}

// parseCDNPaths reads every spec; names must differ.
func parseCDNPaths(specs []string) ([]cdnPath, error) {
	paths := make([]cdnPath, 0, len(specs))
	seen := map[string]bool{}
	for _, s := range specs {
		p, err := parseCDNPath(s)
		if err != nil {
			return nil, usageError("%v", err)
		}
		if seen[p.name] {
			return nil, usageError("path %s is given twice", p.name)
		}
		seen[p.name] = true
		paths = append(paths, p)
	}
	return paths, nil
}

// yamlValue reads a setting's value as YAML: true, 5s, 64, [a, b].
func yamlValue(text string) (any, error) {
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("the value is not YAML: %w", err)
	}
	return v, nil
}

// checkedFlags are a command's flags that check themselves once parsed.
type checkedFlags interface {
	register(fs *flag.FlagSet)
	check() error
}

// parseChecked registers f's flags on fs, parses args and checks them.
func parseChecked(fs *cliflags.FlagSet, f checkedFlags, args []string) error {
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return f.check()
}

// cdnFlags are what mbbench join and wire share: the moonbridge binary, the proxy's TLS
// provider, the paths and the keys laid over the proxy's config, how long the run may take and
// how its report is printed. check parses paths and keys.
type cdnFlags struct {
	serve, tlsProvider   string
	pathSpecs, serveKeys stringList
	defaultPaths         []string
	timeout              time.Duration
	json                 bool
	paths                []cdnPath
	keys                 map[string]any
}

func (f *cdnFlags) register(fs *flag.FlagSet, defaultPaths []string) {
	f.defaultPaths = defaultPaths
	fs.StringVar(&f.serve, "serve", "", "the moonbridge `binary` run as the proxy (serve, edge namespace) and the bridges (client, player namespace)")
	fs.StringVar(&f.tlsProvider, "tls-provider", "", "the proxy's TLS provider, boringssl or go (default: moonbridge's)")
	fs.Var(&f.pathSpecs, "path", fmt.Sprintf("`NAME=TRANSPORT [listener.KEY=VALUE]... [bridge.KEY=VALUE]...`: a path (repeat; default %s; the first is the baseline)", strings.Join(defaultPaths, ", ")))
	fs.Var(&f.serveKeys, "serve-key", "`KEY.KEY=VALUE` laid over the proxy's config, VALUE YAML (repeat)")
	fs.DurationVar(&f.timeout, "timeout", time.Hour, "stop the run after this long")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON instead of markdown")
}

func (f *cdnFlags) check() (err error) {
	switch {
	case f.serve == "":
		return usageError("give --serve bin/moonbridge")
	case f.tlsProvider != "" && f.tlsProvider != "boringssl" && f.tlsProvider != "go":
		return usageError("--tls-provider %q: want boringssl or go", f.tlsProvider)
	}
	specs := []string(f.pathSpecs)
	if len(specs) == 0 {
		specs = f.defaultPaths
	}
	if f.paths, err = parseCDNPaths(specs); err != nil {
		return err
	}
	f.keys, err = parseServeKeys(f.serveKeys)
	return err
}

// bedConfig is the testbed of paths with these flags' binary, provider and keys.
func (f *cdnFlags) bedConfig(paths []cdnPath, rtt time.Duration, profile backend.Profile, log io.Writer) cdnBedConfig {
	return cdnBedConfig{binary: f.serve, tlsProvider: f.tlsProvider, paths: paths, serveKeys: f.keys, rtt: rtt, profile: profile, log: log}
}

// measure runs m within --timeout and the signals, then prints its report on stdout: as JSON
// with --json, else through markdown.
func (f *cdnFlags) measure(stdout io.Writer, m func(context.Context) (report any, markdown func(io.Writer), err error)) error {
	var report any
	var markdown func(io.Writer)
	err := withSignals(f.timeout, func(ctx context.Context) (err error) {
		report, markdown, err = m(ctx)
		return err
	})
	switch {
	case err != nil:
		return err
	case f.json:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	markdown(stdout)
	return nil
}

// cdnMeta is the environment of a join or wire run, first in its report.
type cdnMeta struct {
	Time   string         `json:"time"`
	Kernel string         `json:"kernel"`
	CPUs   int            `json:"cpus"`
	Go     string         `json:"go"`
	Args   []string       `json:"args"`
	PIDs   map[string]int `json:"pids"` // join's; wire's phases each have their own
	// LinkRealtime says whether the link's pumps ran under SCHED_FIFO (delaylink.Link.Realtime).
	LinkRealtime bool `json:"link_realtime"`
}

// newCDNMeta is this run's environment, without the testbed's PIDs and link.
func newCDNMeta() cdnMeta {
	return cdnMeta{Time: time.Now().UTC().Format(time.RFC3339), Kernel: kernelRelease(), CPUs: runtime.NumCPU(), Go: runtime.Version(), Args: os.Args[1:]}
}
