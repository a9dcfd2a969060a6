package config

import (
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/relay"
)

func TestAttackModeKeys(t *testing.T) {
	cfg, err := Parse([]byte("defence:\n  attack_mode:\n    pings_per_second: 50\n    cooldown: 2m\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := relay.DefaultAttackMode()
	want.PingsPerSecond, want.Cooldown = 50, 2*time.Minute
	if cfg.Defence.AttackMode != want {
		t.Errorf("attack mode %+v, want %+v", cfg.Defence.AttackMode, want)
	}
	off, err := Parse([]byte("defence:\n  attack_mode:\n    enabled: false\n"), noEnv)
	if err != nil || off.Defence.AttackMode.Enabled {
		t.Errorf("enabled: false gave %+v, %v", off.Defence.AttackMode, err)
	}
	for key, yaml := range map[string]string{
		"connections_per_second": "connections_per_second: 0",
		"pings_per_second":       "pings_per_second: -1",
		"logins_per_second":      "logins_per_second: 0",
		"cooldown":               "cooldown: 0s",
	} {
		_, err := Parse([]byte("defence:\n  attack_mode:\n    "+yaml+"\n"), noEnv)
		if want := "defence.attack_mode." + key + ": must be positive"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", yaml, err, want)
		}
	}
}

func TestDefenceBlockKeys(t *testing.T) {
	cfg, err := Parse([]byte("defence:\n  block:\n    after: 3\n    for: 5m\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := relay.Block{After: 3, Window: 10 * time.Second, For: 5 * time.Minute, MaxAddresses: 10000}
	if cfg.Defence.Block != want {
		t.Errorf("defence.block %+v, want %+v", cfg.Defence.Block, want)
	}
	if off, err := Parse([]byte("defence:\n  block:\n    after: 0\n"), noEnv); err != nil || off.Defence.Block.After != 0 {
		t.Errorf("after: 0 (off): %+v, %v", off.Defence.Block, err)
	}
	cases := map[string]struct{ yaml, want string }{
		"after":  {"defence:\n  block:\n    after: -1\n", "defence.block.after: must be 0"},
		"window": {"defence:\n  block:\n    window: 0s\n", "defence.block.window: must be positive"},
		"for":    {"defence:\n  block:\n    for: 0s\n", "defence.block.for: must be positive"},
		"cap":    {"defence:\n  block:\n    max_addresses: 0\n", "defence.block.max_addresses: must be positive"},
	}
	for name, tc := range cases {
		if _, err := Parse([]byte(tc.yaml), noEnv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, tc.want)
		}
	}
}
