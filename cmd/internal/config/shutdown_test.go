package config

import (
	"strings"
	"testing"
	"time"
)

func TestShutdownKeys(t *testing.T) {
	cfg, err := Parse([]byte("shutdown:\n  drain_timeout: 2m\n  motd: brb\n  transfer_to: play.example.net:25565\n  transfer_cookie_ttl: 30s\n"), noEnv)
	want := Shutdown{DrainTimeout: 2 * time.Minute, MOTD: "brb", TransferTo: "play.example.net:25565", TransferCookieTTL: 30 * time.Second}
	if err != nil || cfg.Shutdown != want {
		t.Errorf("shutdown: %+v, %v", cfg.Shutdown, err)
	}
	if d := Default().Shutdown.DrainTimeout; d != 30*time.Second {
		t.Errorf("default drain_timeout %v, want 30s (README, the systemd unit)", d)
	}
	for text, want := range map[string]string{
		"shutdown:\n  drain_timeout: -1s\n":                        "line 2: shutdown.drain_timeout: must be 0",
		"shutdown:\n  drain_timeout: 30\n":                         "line 2: shutdown.drain_timeout: want a duration such as 5s",
		"shutdown:\n  transfer_to: play.example.net\n":             "shutdown.transfer_to: transfer target \"play.example.net\": want host:port",
		"shutdown:\n  transfer_to: a:0\n":                          "the port must be 1 to 65535",
		"shutdown:\n  transfer_cookie_ttl: -1s\n":                  "shutdown.transfer_cookie_ttl: must be 0",
		"shutdown:\n  transfer_secret_file: /nonexistent/secret\n": "shutdown.transfer_secret_file: cannot read /nonexistent/secret",
	} {
		if _, err := Parse([]byte(text), noEnv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, want)
		}
	}
}
