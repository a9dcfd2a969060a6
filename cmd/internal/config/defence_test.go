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
