package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// servedConfig is what the moonbridge config mbbench writes for --serve says, for a run that
// needs more than `serve --backend` (the upgrades mode, an online login): one catch-all route to
// the fake backend, per-address limits raised because every player comes from 127.0.0.1
// (the defaults, 5 new connections a second in bursts of 10, would refuse most of a run), and
// for online logins the login meter raised out of reach.
type servedConfig struct {
	quiet      bool         // log level warn: no line per session (the upgrades mode's rate would flood the output)
	tokenKeys  []string     // absolute paths of the public keys the route requires tokens checked with; none: tokens off
	tokenCache int          // access.token_cache: verified tokens remembered (0: every token verified)
	online     *onlineRoute // the route's online login; nil: logins pass through
}

// onlineRoute is the route's auth: online against mbbench's fake session server.
type onlineRoute struct {
	sessionServer string // base URL, login.session_server
	forwarding    string // none or bungeecord
}

// prepareServe has --serve's moonbridge started with a config of mbbench's when the run needs
// one and the caller gave none (a --serve-arg --config); cleanup removes it after the run.
// sessions is the fake session server of --auth online, nil otherwise.
func (f *runFlags) prepareServe(sessions *authfake.SessionServer) (cleanup func(), err error) {
	if f.serve == "" || f.callerConfig() || (f.mode != modeUpgrades && sessions == nil) {
		return func() {}, nil
	}
	var c servedConfig
	if err := f.upgradeFlags.served(&c); err != nil {
		return nil, err
	}
	f.loginFlags.served(&c, sessions)
	dir, err := tempConfigDir()
	if err != nil {
		return nil, err
	}
	f.routesConfig = func(backendAddr string) (string, error) { return writeConfig(dir, c.text(backendAddr)) }
	return func() { os.RemoveAll(dir) }, nil
}

// callerConfig reports whether --serve-arg gives moonbridge a config file of the caller's,
// which then wins over one mbbench would write.
func (f *targetFlags) callerConfig() bool {
	return slices.ContainsFunc(f.serveArgs, func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "config") })
}

// tempConfigDir is a directory for the moonbridge config mbbench writes; remove it after the run.
func tempConfigDir() (string, error) { return os.MkdirTemp("", "mbbench-") }

// writeConfig writes text as dir/moonbridge.yml and returns its path.
func writeConfig(dir, text string) (string, error) {
	path := filepath.Join(dir, "moonbridge.yml")
	return path, os.WriteFile(path, []byte(text), 0o600)
}

// text is the config's YAML, its route to backendAddr.
func (c servedConfig) text(backendAddr string) string {
	var b strings.Builder
	b.WriteString("# written by mbbench run\n")
	if c.quiet {
		b.WriteString("log:\n  level: warn\n")
	}
	b.WriteString("limits:\n  max_connections: 100000\n  max_connections_per_ip: 100000\n" +
		"  connection_rate_per_ip: 1000000\n  connection_burst_per_ip: 1000000\n" +
		"  max_connections_per_network: 100000\n  connection_rate_per_network: 1000000\n  connection_burst_per_network: 1000000\n" +
		"  status_rate_per_network: 1000000\n  status_burst_per_network: 1000000\n" +
		"  login_rate_per_network: 1000000\n  login_burst_per_network: 1000000\n")
	tokens := "off"
	if len(c.tokenKeys) > 0 {
		tokens = "required"
	}
	fmt.Fprintf(&b, "routes:\n  - hosts: [\"*\"]\n    backends: [%q]\n    access:\n      tokens: %q\n", backendAddr, tokens)
	if c.online != nil {
		fmt.Fprintf(&b, "    auth: online\n    forwarding: %q\n", c.online.forwarding)
	}
	b.WriteString("access:\n  keys: [")
	for i, k := range c.tokenKeys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", k)
	}
	fmt.Fprintf(&b, "]\n  token_cache: %d\n", c.tokenCache)
	if c.online != nil {
		// The login meter's defaults (0.9 a second, bursts of 40) protect Mojang's allowance;
		// the fake session server has none, and a run measures moonbridge, not the meter.
		fmt.Fprintf(&b, "login:\n  session_server: %q\n  meter:\n    rate: 1000000\n    burst: 1000000\n", c.online.sessionServer)
	}
	return b.String()
}
