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

// upgradeFlags are mbbench run's flags of the upgrades mode: the upgrade rate, with access
// tokens required when the dialer carries one (bench/results/2026-11-30-access-upgrade-rate.md).
type upgradeFlags struct {
	mode             string
	duration, warmup time.Duration
	tokenFile        string
	tokenKeys        stringList
	tokenCache       int
	token            string // read from tokenFile by readToken
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

// readToken reads --token-file.
func (f *upgradeFlags) readToken() error {
	if f.tokenFile == "" {
		return nil
	}
	b, err := os.ReadFile(f.tokenFile)
	if err != nil {
		return fmt.Errorf("--token-file: %w", err)
	}
	f.token = strings.TrimSpace(string(b))
	return nil
}

// served puts the upgrades mode's settings into the config --serve's moonbridge gets: tokens
// required with --token-key's keys (off without), --token-cache of them remembered, and no log
// line per session, which at thousands of sessions a second would be most of what is measured
// and flood the raw output.
func (f *upgradeFlags) served(c *servedConfig) error {
	if f.mode != modeUpgrades {
		return nil
	}
	c.quiet, c.tokenCache = true, f.tokenCache
	for _, k := range f.tokenKeys {
		abs, err := filepath.Abs(k)
		if err != nil {
			return fmt.Errorf("--token-key: %w", err)
		}
		c.tokenKeys = append(c.tokenKeys, abs)
	}
	return nil
}
