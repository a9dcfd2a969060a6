package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/logging"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = dispatch(args, nil, &out, &errOut)
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
	home := t.TempDir() // no moonbridge-client.yml in the user's config folder
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	if code, _, stderr := run(); code != 2 || !strings.Contains(stderr, "Usage: moonbridge COMMAND") {
		t.Errorf("no command, no console, no settings file: exit %d, %q; want the usage and 2", code, stderr)
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

// commandFlags is what serve and client register and build their config from.
type commandFlags interface {
	register(fs *flag.FlagSet)
	effectiveConfig() (config.Config, error)
}

// parseCommandLine takes args as the command name does before it starts (runDaemon): the
// command's FlagSet and its Parse (cliflags.ErrUsage, with the flag package's complaint, for a
// bad command line), then the effective config.
func parseCommandLine(name string, f commandFlags, args ...string) (config.Config, error) {
	var complaint strings.Builder
	fs := newFlagSet(name, "[flags]", "", io.Discard, &complaint)
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return config.Config{}, fmt.Errorf("%w: %s", err, strings.SplitN(complaint.String(), "\n", 2)[0])
	}
	return f.effectiveConfig()
}

func TestServeFlagsOverrideConfig(t *testing.T) {
	dir := t.TempDir()
	pair, err := gossl.SelfSigned([]string{"play.example.test"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	file, cert, key := filepath.Join(dir, "serve.yml"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	yaml := "log:\n  level: warn\nwebsocket:\n  path: /from-file\n  keepalive: 45s\nadmin:\n  listen: 127.0.0.1:9100\n"
	for name, data := range map[string][]byte{file: []byte(yaml), cert: pair.CertPEM, key: pair.KeyPEM} {
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := parseCommandLine("serve", new(serveFlags), "--config", file, "--listen", "127.0.0.1:0",
		"--backend", "127.0.0.1:1", "--ws-path", "/play", "--tls-provider", "go", "--tls-cert", cert,
		"--tls-key", key, "--tls-record-layer", "aead", "--admin", "127.0.0.1:9200", "--log-level", "debug", "--log-format", "json")
	if err != nil {
		t.Fatal(err)
	}
	wantListeners := []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft, relay.WS, relay.WSS}}}
	if !reflect.DeepEqual(cfg.Listeners, wantListeners) {
		t.Errorf("listeners %+v, want %+v", cfg.Listeners, wantListeners)
	}
	if len(cfg.Routes) != 1 || !reflect.DeepEqual(cfg.Routes[0].Backends, []string{"127.0.0.1:1"}) {
		t.Errorf("routes %+v, want every host to 127.0.0.1:1", cfg.Routes)
	}
	got := []string{cfg.WebSocket.Path, cfg.TLS.Provider, cfg.TLS.Cert, cfg.TLS.Key, cfg.TLS.RecordLayer,
		cfg.Admin.Listen, cfg.Log.Level, cfg.Log.Format}
	want := []string{"/play", "go", cert, key, "aead", "127.0.0.1:9200", "debug", "json"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("path, provider, cert, key, record layer, admin, log level and format %q, want %q", got, want)
	}
	if cfg.WebSocket.Keepalive != 45*time.Second {
		t.Errorf("keepalive %v: a setting no flag names must come from the file (45s)", cfg.WebSocket.Keepalive)
	}
}

func TestServeRefusesBadCommandLines(t *testing.T) {
	if _, err := parseCommandLine("serve", new(serveFlags), "--colour"); !errors.Is(err, cliflags.ErrUsage) {
		t.Errorf("unknown flag: %v, want cliflags.ErrUsage", err)
	}
	if _, err := parseCommandLine("serve", new(serveFlags), "--tls-provider", "openssl"); err == nil || !strings.Contains(err.Error(), "--tls-provider") {
		t.Errorf("bad provider flag: %v, want an error naming --tls-provider", err)
	}
	if _, err := parseCommandLine("serve", new(serveFlags), "--tls-record-layer", "kernel"); err == nil || !strings.Contains(err.Error(), "--tls-record-layer") {
		t.Errorf("bad record layer flag: %v, want an error naming --tls-record-layer", err)
	}
	var invalid *config.InvalidError
	if _, err := parseCommandLine("serve", new(serveFlags), "--tls-cert", "/etc/mb/cert.pem"); !errors.As(err, &invalid) {
		t.Errorf("--tls-cert without --tls-key: %v, want an *InvalidError", err)
	}
}

func TestServeLogsListenersAndStops(t *testing.T) {
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	logs := startServe(t, cfg)
	testutil.WaitFor(t, "the listener line", func() bool {
		return strings.Contains(logs.String(), " for Minecraft, ws and wss (TLS: ")
	})
}

// startServe runs serve with cfg until the test ends, then checks it stopped cleanly; it
// returns serve's JSON log.
func startServe(t *testing.T, cfg config.Config) *testutil.SyncBuffer {
	t.Helper()
	logs, _ := stoppableServe(t, cfg)
	return logs
}

// stoppableServe runs serve with cfg until the returned stop (or the test's end), which checks
// that it stopped cleanly; it returns serve's JSON log.
func stoppableServe(t *testing.T, cfg config.Config) (*testutil.SyncBuffer, func()) {
	t.Helper()
	var logs testutil.SyncBuffer
	log, err := logging.New(&logs, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, ctx, cfg, log, func() (config.Config, error) { return cfg, nil }, process{sockets: newSockets()})
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return &logs, stop
}

func TestServeAdminExportsRelayMetrics(t *testing.T) {
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
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

// TestServeAdminPprofOnlyWhenAsked: Go's profiles are on the admin port with admin.pprof and
// absent without it.
func TestServeAdminPprofOnlyWhenAsked(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := config.Default()
		cfg.Listeners[0].Addr = "127.0.0.1:0"
		cfg.Admin = config.Admin{Listen: "127.0.0.1:0", Pprof: on}
		admin := "http://" + adminAddr(t, startServe(t, cfg))
		want := http.StatusNotFound
		if on {
			want = http.StatusOK
		}
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/goroutine?debug=1"} {
			if got := httpStatus(t, admin+path); got != want {
				t.Errorf("pprof %v: %s answered %d, want %d", on, path, got, want)
			}
		}
		if on && !strings.Contains(httpGet(t, admin+"/debug/pprof/heap?debug=1"), "heap profile:") {
			t.Error("/debug/pprof/heap?debug=1 is not a heap profile")
		}
	}
}

// adminAddr waits for the admin endpoint's startup line and returns its address.
func adminAddr(t *testing.T, logs *testutil.SyncBuffer) string {
	t.Helper()
	return waitForLog(t, logs, "Admin endpoint")["addr"]
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
