package config

import (
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/bufpool"
)

func TestMemoryKeysAreChecked(t *testing.T) {
	cases := map[string]struct{ yaml, want string }{
		"profile":      {"memory:\n  profile: fast\n", `line 2: memory.profile: "fast" is not one of low, throughput`},
		"small limit":  {"memory:\n  profile: low\n  limit: 8\n", "line 3: memory.limit: must be 0 (the cgroup's limit, else half the machine's memory) or at least 32 (MiB)"},
		"neg limit":    {"memory:\n  limit: -1\n", "line 2: memory.limit: must be 0"},
		"word limit":   {"memory:\n  limit: 1GiB\n", "line 2: memory.limit: want a whole number"},
		"empty reason": {"memory:\n  full_message: \" \"\n", "line 2: memory.full_message: must not be empty"},
	}
	for name, tc := range cases {
		if _, err := Parse([]byte(tc.yaml), noEnv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, tc.want)
		}
	}
	cfg, err := Parse([]byte("memory:\n  profile: throughput\n  limit: 512\n"), noEnv)
	if err != nil || cfg.Memory.Profile != bufpool.Throughput || cfg.Memory.LimitMiB != 512 || cfg.Memory.FullMessage == "" {
		t.Errorf("a valid memory section: %+v, %v", cfg.Memory, err)
	}
}
