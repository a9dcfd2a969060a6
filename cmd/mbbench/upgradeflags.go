package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/upgrade"
)

// What `mbbench run --mode` measures.
const (
	modeFrames   = "frames"   // the session benchmark: round trips of a traffic profile
	modeUpgrades = "upgrades" // connection setup: sessions established and closed in a loop
)

// upgradeFlags are mbbench run's flags of the upgrades mode (issue 17: the upgrade rate with
// access tokens required).
type upgradeFlags struct {
	mode             string
	duration, warmup time.Duration
	tokenFile        string
	tokenKeys        stringList
	tokenCache       int
	token            string // read from tokenFile by prepare
}

func (f *upgradeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "mode", modeFrames, "what a phase measures: frames (round trips of --profile) or upgrades (sessions established and closed in a loop by --connections workers)")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "upgrades: the measured window of each phase")
	fs.DurationVar(&f.warmup, "warmup-duration", 2*time.Second, "upgrades: upgrades before each window, not counted")
	fs.StringVar(&f.tokenFile, "token-file", "", "ws, wss: send the access token in this `file` as Authorization: Bearer")
	fs.Var(&f.tokenKeys, "token-key", "upgrades with --serve: moonbridge requires tokens, checked with this public key `file` (repeatable)")
	fs.IntVar(&f.tokenCache, "token-cache", 0, "upgrades with --token-key: moonbridge's access.token_cache (`entries`; 0 verifies every token)")
}

func (f *upgradeFlags) check(tf *targetFlags) error {
	switch {
	case f.mode != modeFrames && f.mode != modeUpgrades:
		return usageError("--mode %q: want frames or upgrades", f.mode)
	case f.mode == modeUpgrades && (f.duration <= 0 || f.warmup < 0):
		return usageError("--duration must be positive and --warmup-duration not negative")
	case f.tokenFile != "" && tf.transport == client.TransportTCP:
		return usageError("--token-file: %v", client.ErrTokenOverTCP)
	case len(f.tokenKeys) > 0 && (f.mode != modeUpgrades || tf.serve == "" || tf.callerConfig()):
		return usageError("--token-key needs --mode upgrades and --serve without a --serve-arg --config")
	case f.tokenCache != 0 && len(f.tokenKeys) == 0:
		return usageError("--token-cache needs --token-key")
	}
	return nil
}

func (f *upgradeFlags) upgradeConfig(connections int) upgrade.Config {
	return upgrade.Config{Connections: connections, Warmup: f.warmup, Duration: f.duration}
}

// prepare reads the token and, for the upgrades mode with --serve, has moonbridge started with
// a config of mbbench's; cleanup removes it after the run.
func (f *upgradeFlags) prepare(tf *targetFlags) (cleanup func(), err error) {
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		f.token = strings.TrimSpace(string(b))
	}
	if f.mode != modeUpgrades || tf.serve == "" || tf.callerConfig() {
		return func() {}, nil
	}
	keys := make([]string, len(f.tokenKeys))
	for i, k := range f.tokenKeys {
		if keys[i], err = filepath.Abs(k); err != nil {
			return nil, err
		}
	}
	dir, err := tempConfigDir()
	if err != nil {
		return nil, err
	}
	tf.routesConfig = func(backendAddr string) (string, error) {
		return writeConfig(dir, upgradesConfig(backendAddr, keys, f.tokenCache))
	}
	return func() { os.RemoveAll(dir) }, nil
}

// upgradesConfig is moonbridge's config for the upgrades mode: every session comes from
// 127.0.0.1 at thousands a second, which the default per-address limits (5 new connections a
// second in bursts of 10) would refuse; one route to the backend that requires tokens checked
// with keys (remembering tokenCache of them), or none when there are no keys; and no log line per session (log level warn),
// which at this rate would be most of what is measured and flood the raw output.
func upgradesConfig(backendAddr string, keys []string, tokenCache int) string {
	tokens := "off"
	if len(keys) > 0 {
		tokens = "required"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# written by mbbench run --mode upgrades\nlog:\n  level: warn\n")
	fmt.Fprintf(&b, "limits:\n  max_connections: 100000\n  max_connections_per_ip: 100000\n"+
		"  connection_rate_per_ip: 1000000\n  connection_burst_per_ip: 1000000\n")
	fmt.Fprintf(&b, "routes:\n  - hosts: [\"*\"]\n    backends: [%q]\n    access:\n      tokens: %q\n", backendAddr, tokens)
	fmt.Fprintf(&b, "access:\n  keys: [")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", k)
	}
	fmt.Fprintf(&b, "]\n  token_cache: %d\n", tokenCache)
	return b.String()
}
