package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/netns"
	"github.com/moonbridge/moonbridge/bench/netpath"
	"github.com/moonbridge/moonbridge/bench/target"
)

// Ports of the simulated CDN path: path i's listener on the proxy (edge namespace) and its
// bridge's game port (player namespace's loopback). Both namespaces are new, so they are free.
const (
	cdnListenPort = 25600
	cdnBridgePort = 25700
)

// cdnBedConfig is what the simulated CDN path runs: moonbridge (one binary: serve in the edge
// namespace, client, the bridges, in the player's), its paths and the extra serve keys.
type cdnBedConfig struct {
	binary, tlsProvider string
	paths               []cdnPath
	serveKeys           map[string]any // laid over the proxy's config (mergeConfig)
	rtt                 time.Duration
	profile             backend.Profile // what the fake backend plays to 1.7.10 logins
	log                 io.Writer       // the processes' output, the backend's log
}

// cdnBed is the simulated CDN path running: the namespaces and the link (netpath), the fake
// backend (in this process, on the edge namespace's loopback) and moonbridge serve in the edge
// namespace, and a bridge per ws or wss path in the player namespace.
type cdnBed struct {
	cfg     cdnBedConfig
	net     *netpath.Path
	be      *backend.Server
	serve   *target.Managed
	bridges map[string]*target.Managed // by path name
	dir     string
}

// openCDNBed starts everything; on an error it stops what it started.
func openCDNBed(ctx context.Context, cfg cdnBedConfig) (_ *cdnBed, err error) {
	b := &cdnBed{cfg: cfg, bridges: map[string]*target.Managed{}}
	defer func() {
		if err != nil {
			err = errors.Join(err, b.close())
		}
	}()
	if b.dir, err = tempConfigDir(); err != nil {
		return nil, err
	}
	if b.net, err = netpath.Open(fmt.Sprintf("mbbench-%d", os.Getpid()), cfg.rtt); err != nil {
		return nil, err
	}
	err = b.net.Edge.Do(func() (err error) {
		b.be, err = backend.ListenWith("127.0.0.1:0", cfg.profile, newLogger(cfg.log, "warn"), backend.Options{Modern: modern.ServerConfig{Compression: 256}})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("fake backend: %w", err)
	}
	if err := b.startServe(ctx); err != nil {
		return nil, err
	}
	for i, p := range cfg.paths {
		if p.transport != client.TransportTCP {
			if b.bridges[p.name], err = b.startBridge(ctx, i, p); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func cdnListenAddr(i int) string {
	return net.JoinHostPort(netpath.EdgeAddr, fmt.Sprint(cdnListenPort+i))
}
func cdnBridgeAddr(i int) string { return net.JoinHostPort("127.0.0.1", fmt.Sprint(cdnBridgePort+i)) }

// startServe writes the proxy's config and starts moonbridge serve in the edge namespace.
func (b *cdnBed) startServe(ctx context.Context) error {
	text, err := b.cfg.serveConfig(b.be.Addr())
	if err != nil {
		return err
	}
	path := filepath.Join(b.dir, "serve.yml")
	if err := os.WriteFile(path, text, 0o600); err != nil {
		return err
	}
	cmd := b.net.Edge.Command(b.cfg.binary, "serve", "--config", path, "--log-format", "json")
	cmd.Stdout, cmd.Stderr = b.cfg.log, b.cfg.log
	b.serve, err = target.Launch(ctx, "moonbridge serve", cmd, cdnListenAddr(0), probeIn(b.net.Edge))
	return err
}

// serveConfig is mbbench's usual served config (limits raised: every join comes from the
// player namespace's one address; log level warn) with a listener per path, every protocol on
// each, and the serve keys laid over it.
func (c cdnBedConfig) serveConfig(backendAddr string) ([]byte, error) {
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(servedConfig{quiet: true}.text(backendAddr)), &cfg); err != nil {
		return nil, err
	}
	listeners := make([]any, len(c.paths))
	for i, p := range c.paths {
		l := map[string]any{"listen": cdnListenAddr(i), "protocols": []string{"minecraft", "ws", "wss"}}
		maps.Copy(l, p.listener)
		listeners[i] = l
	}
	cfg["listeners"] = listeners
	if c.tlsProvider != "" {
		cfg = mergeConfig(cfg, map[string]any{"tls": map[string]any{"provider": c.tlsProvider}})
	}
	return yaml.Marshal(mergeConfig(cfg, c.serveKeys))
}

// startBridge starts moonbridge client for path i in the player namespace, its URL the path's
// listener (wss without verification: the proxy's certificate is its throwaway self-signed one).
func (b *cdnBed) startBridge(ctx context.Context, i int, p cdnPath) (*target.Managed, error) {
	text, err := bridgeConfig(i, p)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(b.dir, "bridge-"+p.name+".yml")
	if err := os.WriteFile(path, text, 0o600); err != nil {
		return nil, err
	}
	cmd := b.net.Player.Command(b.cfg.binary, "client", "--config", path, "--log-format", "json")
	cmd.Stdout, cmd.Stderr = io.Discard, b.cfg.log // stdout: what to type in Minecraft, for a player
	return target.Launch(ctx, "moonbridge client ("+p.name+")", cmd, cdnBridgeAddr(i), probeIn(b.net.Player))
}

// bridgeConfig is the config of path i's bridge: its game port, the path's listener as its
// URL, the path's bridge keys; log level warn (a line per session otherwise).
func bridgeConfig(i int, p cdnPath) ([]byte, error) {
	c := map[string]any{"listen": cdnBridgeAddr(i), "url": p.transport + "://" + cdnListenAddr(i) + "/mc"}
	if p.transport == client.TransportWSS {
		c["insecure"] = true
	}
	maps.Copy(c, p.bridge)
	return yaml.Marshal(map[string]any{"log": map[string]any{"level": "warn"}, "client": c})
}

// probeIn is a readiness probe dialled from inside ns.
func probeIn(ns *netns.NS) target.Probe {
	return func(addr string, timeout time.Duration) error {
		return ns.Do(func() error { return target.DialProbe(addr, timeout) })
	}
}

// dialer is where path i starts for a game client in the player namespace: the proxy's
// listener for raw TCP, the path's bridge otherwise.
func (b *cdnBed) dialer(i int) func(ctx context.Context) (net.Conn, error) {
	addr := cdnListenAddr(i)
	if b.cfg.paths[i].transport != client.TransportTCP {
		addr = cdnBridgeAddr(i)
	}
	return func(ctx context.Context) (c net.Conn, err error) {
		err = b.net.Player.Do(func() error {
			var d net.Dialer
			c, err = d.DialContext(ctx, "tcp", addr)
			return err
		})
		return c, err
	}
}

// pids names the processes by what they are: serve, and bridge:NAME per bridge.
func (b *cdnBed) pids() map[string]int {
	m := map[string]int{"serve": b.serve.PID()}
	for name, br := range b.bridges {
		m["bridge:"+name] = br.PID()
	}
	return m
}

// close stops the bridges, the proxy and the backend and removes the namespaces; traffic the
// backend refused fails the run.
func (b *cdnBed) close() error {
	var errs []error
	for _, br := range b.bridges {
		errs = append(errs, br.Stop())
	}
	if b.serve != nil {
		errs = append(errs, b.serve.Stop())
	}
	if b.be != nil {
		b.be.Close()
		if n := b.be.Failures(); n > 0 {
			errs = append(errs, fmt.Errorf("the backend refused %d sessions' traffic (see its log lines)", n))
		}
	}
	if b.net != nil {
		errs = append(errs, b.net.Close())
	}
	if b.dir != "" {
		errs = append(errs, os.RemoveAll(b.dir))
	}
	return errors.Join(errs...)
}

// parseServeKeys reads `KEY.KEY...=VALUE` settings (VALUE YAML) into the nested maps
// mergeConfig lays over the proxy's config.
func parseServeKeys(kvs []string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range kvs {
		key, text, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return nil, usageError("--serve-key %q: want KEY.KEY=VALUE", kv)
		}
		value, err := yamlValue(text)
		if err != nil {
			return nil, usageError("--serve-key %q: %v", kv, err)
		}
		parts := strings.Split(key, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = value
	}
	return out, nil
}
