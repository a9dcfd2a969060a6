package config

import (
	"strings"
	"testing"
	"time"
)

func TestShutdownKeys(t *testing.T) {
	cfg, err := Parse([]byte("shutdown:\n  drain_timeout: 2m\n  motd: brb\n"), noEnv)
	if err != nil || cfg.Shutdown != (Shutdown{DrainTimeout: 2 * time.Minute, MOTD: "brb"}) {
		t.Errorf("shutdown: %+v, %v", cfg.Shutdown, err)
	}
	if d := Default().Shutdown.DrainTimeout; d != 30*time.Second {
		t.Errorf("default drain_timeout %v, want 30s (README, the systemd unit)", d)
	}
	for text, want := range map[string]string{
		"shutdown:\n  drain_timeout: -1s\n": "line 2: shutdown.drain_timeout: must be 0",
		"shutdown:\n  drain_timeout: 30\n":  "line 2: shutdown.drain_timeout: want a duration such as 5s",
	} {
		if _, err := Parse([]byte(text), noEnv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, want)
		}
	}
}
