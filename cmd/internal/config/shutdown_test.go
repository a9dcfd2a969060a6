package config

import (
	"path/filepath"
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

// TestTransferSecretNeedsSixteenBytes: a transfer secret shorter than the API token's minimum is
// refused at load (check-config included) with the key named; one of 16 bytes (its line end
// trimmed) loads, and ReadTransferSecret gives it as the file holds it.
func TestTransferSecretNeedsSixteenBytes(t *testing.T) {
	dir := t.TempDir()
	short, good := filepath.Join(dir, "short"), filepath.Join(dir, "good")
	writeTestFile(t, short, "x\n")
	writeTestFile(t, good, "0123456789abcdef\r\n")
	_, err := Parse([]byte("shutdown:\n  transfer_secret_file: "+short+"\n"), noEnv)
	if err == nil || !strings.Contains(err.Error(), "shutdown.transfer_secret_file") || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a one-byte secret: %v, want shutdown.transfer_secret_file refused, wanting at least 16 bytes", err)
	}
	if _, err := Parse([]byte("shutdown:\n  transfer_secret_file: "+good+"\n"), noEnv); err != nil {
		t.Errorf("a 16-byte secret: %v", err)
	}
	if got, err := ReadTransferSecret(good); err != nil || string(got) != "0123456789abcdef" {
		t.Errorf("ReadTransferSecret: %q, %v", got, err)
	}
}

func TestUpgradeKeys(t *testing.T) {
	cfg, err := Parse([]byte("upgrade:\n  timeout: 1m\n  stay: 0s\n"), noEnv)
	if want := (Upgrade{Timeout: time.Minute}); err != nil || cfg.Upgrade != want {
		t.Errorf("upgrade: %+v, %v; want %+v", cfg.Upgrade, err, want)
	}
	if d := Default().Upgrade; d != (Upgrade{Timeout: 30 * time.Second, Stay: 10 * time.Minute}) {
		t.Errorf("default upgrade %+v, want 30s and 10m (docs/upgrade.md)", d)
	}
	for text, want := range map[string]string{
		"upgrade:\n  timeout: 0s\n": "line 2: upgrade.timeout: must be a positive duration",
		"upgrade:\n  stay: -1s\n":   "line 2: upgrade.stay: must be 0",
	} {
		if _, err := Parse([]byte(text), noEnv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, want)
		}
	}
}

// TestTransferWithoutASecretWarns: transfer_to without transfer_secret_file moves players with
// no cookie, so they land by transfer_to's host, not on the route they left: serve says so at
// start (and check-config); with the secret, or without transfer_to, nothing is said.
func TestTransferWithoutASecretWarns(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	writeTestFile(t, secret, "0123456789abcdef\n")
	for text, want := range map[string]bool{
		"shutdown:\n  transfer_to: play.example.net:25565\n":                                         true,
		"shutdown:\n  transfer_to: play.example.net:25565\n  transfer_secret_file: " + secret + "\n": false,
		"shutdown:\n  transfer_secret_file: " + secret + "\n":                                        false,
	} {
		cfg, err := Parse([]byte(text), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		var got []Warning
		for _, w := range cfg.Warnings() {
			if w.Kind == WarnTransferNoSecret {
				got = append(got, w)
			}
		}
		if want != (len(got) == 1) || want && (got[0].Key != "shutdown.transfer_secret_file" || !strings.Contains(got[0].Reason, "play.example.net")) {
			t.Errorf("%q: warnings %v, want one about the secret: %v", text, got, want)
		}
	}
}
