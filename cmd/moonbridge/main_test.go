package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/logging"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = dispatch(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands() {
		code, stdout, _ := run(c.name, "--help")
		if code != 0 || !strings.Contains(stdout, "Usage: moonbridge "+c.name) {
			t.Errorf("%s --help: exit %d, output %q", c.name, code, stdout)
		}
	}
	if code, stdout, _ := run("help"); code != 0 || !strings.Contains(stdout, "check-config") {
		t.Errorf("help: exit %d, %q", code, stdout)
	}
}

func TestUnknownCommandAndBadFlag(t *testing.T) {
	if code, _, stderr := run("launch"); code != 2 || !strings.Contains(stderr, `unknown command "launch"`) {
		t.Errorf("unknown command: exit %d, %q", code, stderr)
	}
	if code, _, _ := run("version", "--colour"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if code, _, _ := run(); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
}

func TestVersionNamesFlavourAndBoringSSL(t *testing.T) {
	code, stdout, _ := run("version", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var info buildinfo.Info
	if err := json.Unmarshal([]byte(stdout), &info); err != nil {
		t.Fatal(err)
	}
	if info.Flavour != buildinfo.Flavour() || info.GoVersion == "" {
		t.Errorf("json: %+v", info)
	}
	if (info.Flavour == "boringssl") != (info.BoringSSL != nil && info.BoringSSL.Revision != "") {
		t.Errorf("flavour %s but boringssl %+v", info.Flavour, info.BoringSSL)
	}
	_, text, _ := run("version")
	if !strings.Contains(text, "flavour:       "+info.Flavour) || !strings.Contains(text, "boringssl:") {
		t.Errorf("text version: %q", text)
	}
}

func TestCheckConfig(t *testing.T) {
	code, stdout, stderr := run("check-config", "../../moonbridge.example.yml")
	if code != 0 || !strings.Contains(stdout, "is valid") || !strings.Contains(stdout, "path: /mc") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	if code, _, _ := run("check-config"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
}

func TestServeFlagsOverrideConfig(t *testing.T) {
	f := serveFlags{listen: "127.0.0.1:0", backend: "127.0.0.1:1", wsPath: "/play", tlsProvider: "go"}
	cfg, err := f.effectiveConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Listeners) != 1 || cfg.Listeners[0].Listen != "127.0.0.1:0" || len(cfg.Listeners[0].Protocols) != 3 {
		t.Errorf("listeners %+v", cfg.Listeners)
	}
	if cfg.Routes[0].Backends[0] != "127.0.0.1:1" || cfg.WebSocket.Path != "/play" || cfg.TLS.Provider != "go" {
		t.Errorf("overrides not applied: %+v", cfg)
	}
	bad := serveFlags{tlsProvider: "openssl"}
	if _, err := bad.effectiveConfig(); err == nil || !strings.Contains(err.Error(), "tls.provider") {
		t.Errorf("bad provider flag: %v", err)
	}
}

func TestServeLogsListenersAndStops(t *testing.T) {
	cfg := config.Default()
	cfg.Listeners[0].Listen = "127.0.0.1:0"
	logs := startServe(t, cfg)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), `"message":"Listening for WebSocket (TLS via `) {
		if time.Now().After(deadline) {
			t.Fatalf("no listener line in %q", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startServe runs serve with cfg until the test ends, then checks it stopped cleanly; it
// returns serve's JSON log.
func startServe(t *testing.T, cfg config.Config) *testutil.SyncBuffer {
	t.Helper()
	var logs testutil.SyncBuffer
	log, err := logging.New(&logs, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ctx, cfg, log, func() (config.Config, error) { return cfg, nil }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return &logs
}

func TestServeAdminExportsRelayMetrics(t *testing.T) {
	cfg := config.Default()
	cfg.Listeners[0].Listen = "127.0.0.1:0"
	cfg.Admin.Listen = "127.0.0.1:0"
	admin := adminAddr(t, startServe(t, cfg))
	body := httpGet(t, "http://"+admin+"/metrics")
	for _, want := range []string{`moonbridge_sessions_active{protocol="minecraft"} 0`,
		`moonbridge_sessions_active{protocol="wss"} 0`, "go_goroutines", "process_resident_memory_bytes",
		`moonbridge_config_reloads_total{result="ok"} 0`, `moonbridge_config_reloads_total{result="failed"} 0`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
	for _, path := range []string{"/healthz", "/livez", "/readyz"} {
		if got := httpGet(t, "http://"+admin+path); got != "ok\n" {
			t.Errorf("%s = %q", path, got)
		}
	}
}

// adminAddr waits for the admin endpoint's startup line and returns its address.
func adminAddr(t *testing.T, logs *testutil.SyncBuffer) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(logs.String(), "\n") {
			var entry struct{ Addr, Message string }
			if json.Unmarshal([]byte(line), &entry) == nil && strings.HasPrefix(entry.Message, "Admin endpoint") {
				return entry.Addr
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no admin endpoint line in %q", logs.String())
	return ""
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(body)
}

func TestWarnOnAutoFallback(t *testing.T) {
	warned := func(requested string, boringCompiled bool, reason string) string {
		var logs testutil.SyncBuffer
		log, err := logging.New(&logs, "info", "json")
		if err != nil {
			t.Fatal(err)
		}
		warnOnFallback(log, requested, boringCompiled, gossl.GoProvider(), reason)
		return logs.String()
	}
	got := warned("auto", true, "auto fell back to Go: BoringSSL self-test failed: boom")
	if !strings.Contains(got, `"level":"warn"`) || !strings.Contains(got, "boom") {
		t.Errorf("no warning with the reason for a fallback: %q", got)
	}
	if got := warned("go", true, "tls.provider is go"); got != "" {
		t.Errorf("warned when Go was asked for: %q", got)
	}
	if got := warned("auto", false, "auto: this build has no BoringSSL"); got != "" {
		t.Errorf("warned in the pure-Go build: %q", got)
	}
}
