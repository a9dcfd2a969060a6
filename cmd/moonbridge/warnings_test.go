package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// An unsafe client address setup is valid: check-config prints the warnings on stderr and exits
// 0, and a clean file gets none.
func TestCheckConfigPrintsWarnings(t *testing.T) {
	dir := t.TempDir()
	unsafe := filepath.Join(dir, "unsafe.yml")
	writeFile(t, unsafe, []byte("trusted_proxies: [0.0.0.0/0]\nclient_ip_headers: [CF-Connecting-IP]\n"))
	code, stdout, stderr := run("check-config", unsafe)
	if code != 0 || !strings.Contains(stdout, "is valid") {
		t.Errorf("exit %d, stdout %q; want 0 and the effective config", code, stdout)
	}
	for _, want := range []string{"warning: forward_secret.value: ", "warning: trusted_proxies[0]: 0.0.0.0/0 covers every address"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	clean := filepath.Join(dir, "clean.yml")
	writeFile(t, clean, []byte("log:\n  level: info\n"))
	if code, _, stderr := run("check-config", clean); code != 0 || stderr != "" {
		t.Errorf("a clean file: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
}

// serve logs each warning as a warn line with its key, at start and again after a reload.
func TestServeLogsWarningsAtStartAndReload(t *testing.T) {
	cfg := localConfig()
	cfg.ClientIPHeaders = []string{"X-Forwarded-For"}
	logs := startServe(t, cfg)
	line := waitForLog(t, logs, "client_ip_headers: trusted_proxies is empty")
	if line["level"] != "warn" || line["key"] != "client_ip_headers" || line["warning"] != string(config.WarnHeaderIgnored) {
		t.Errorf("startup warning %v", line)
	}
	next := localConfig()
	next.TrustedProxies = []string{"::/0"}
	r, reloadLogs := startReloader(t, localConfig(), func() (config.Config, error) { return next, nil })
	r.reload()
	if line := waitForLog(t, reloadLogs, "trusted_proxies[0]: ::/0 covers every address"); line["level"] != "warn" {
		t.Errorf("reload warning %v", line)
	}
}
