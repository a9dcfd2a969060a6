package config

import (
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/relay"
)

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
