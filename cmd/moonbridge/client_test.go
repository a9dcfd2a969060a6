package main

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

func TestClientFlagsOverrideConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "client.yml")
	yaml := "client:\n  url: wss://play.example.test/mc\n  connect: 198.51.100.7:443\n  headers: [\"X-From-File: 1\"]\n  tls_min: \"1.3\"\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseCommandLine("client", new(clientFlags), "--config", file, "--listen", "127.0.0.1:25570", "--sni", "edge.example.test",
		"--header", "X-A: 1", "--header", "X-B: 2", "--token", "s3cret", "--insecure", "--log-level", "debug", "--hello-wait", "30s",
		"--early-data", "--raw-stream")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Client{
		Listen: "127.0.0.1:25570", URL: "wss://play.example.test/mc", Connect: "198.51.100.7:443", SNI: "edge.example.test",
		Headers: []string{"X-A: 1", "X-B: 2"}, Token: "s3cret", Insecure: true, TLSMin: "1.3", HelloWait: 30 * time.Second,
		EarlyData: true, RawStream: true,
	}
	if !reflect.DeepEqual(cfg.Client, want) || cfg.Log.Level != "debug" {
		t.Errorf("client config %+v (log level %s), want %+v", cfg.Client, cfg.Log.Level, want)
	}
}

func TestClientRefusesBadSettings(t *testing.T) {
	if _, err := parseCommandLine("client", new(clientFlags)); !errors.Is(err, errNoURL) {
		t.Errorf("no URL: %v, want errNoURL", err)
	}
	for _, args := range [][]string{
		{"--url", "https://play.example.test/mc"},
		{"--url", "wss://play.example.test/mc", "--tls-min", "1.1"},
		{"--url", "wss://play.example.test/mc", "--header", "nonsense"},
		{"--url", "wss://play.example.test/mc", "--token", "t", "--header", "Authorization: Basic x"},
		{"--url", "wss://play.example.test/mc", "--hello-wait", "soon"},
		{"--url", "wss://play.example.test/mc", "--hello-wait", "-1s"},
	} {
		var invalid *config.InvalidError
		if _, err := parseCommandLine("client", new(clientFlags), args...); !errors.As(err, &invalid) {
			t.Errorf("%q: %v, want an *InvalidError", args, err)
		}
	}
	if code, _, stderr := run("client"); code != 1 || !strings.Contains(stderr, "--url") {
		t.Errorf("client without --url: exit %d, %q", code, stderr)
	}
}

func TestBridgeConfigFromClientSection(t *testing.T) {
	c := config.Default().Client
	c.URL, c.Connect, c.SNI, c.Token, c.TLSMin = "wss://play.example.test/mc", "127.0.0.1:8443", "edge.example.test", "s3cret", "1.3"
	c.HelloWait = 25 * time.Second
	c.EarlyData, c.RawStream = true, true
	bcfg, err := bridgeConfig(c, settingAdvice{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if bcfg.HelloTimeout != c.HelloWait || !bcfg.EarlyData || !bcfg.Remote.RawStream {
		t.Errorf("hello timeout %s, early data %v, raw stream %v; want client.hello_wait %s and both modes",
			bcfg.HelloTimeout, bcfg.EarlyData, bcfg.Remote.RawStream, c.HelloWait)
	}
	r := bcfg.Remote
	if r.Address != "127.0.0.1:8443" || r.ServerName != "edge.example.test" || r.Header.Get("Authorization") != "Bearer s3cret" ||
		r.TLSConfig == nil || r.TLSConfig.MinVersion != tls.VersionTLS13 || r.TLSConfig.InsecureSkipVerify || r.Conn.PingInterval == 0 {
		t.Errorf("bridge config %+v", r)
	}
	c.CA = filepath.Join(t.TempDir(), "missing.pem")
	if _, err := bridgeConfig(c, settingAdvice{}, zerolog.Nop()); err == nil {
		t.Error("a missing --ca file was accepted")
	}
}

func TestClientPrintsWhatToTypeAndStops(t *testing.T) {
	c := config.Default().Client
	c.Listen, c.URL, c.Connect = "127.0.0.1:0", "ws://play.example.test/mc", "127.0.0.1:1"
	var stdout testutil.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runBridge(ctx, c, settingAdvice{}, zerolog.Nop(), &stdout) }()
	testutil.WaitFor(t, "the startup text", func() bool { return strings.Contains(stdout.String(), "Ctrl+C") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if !strings.Contains(out, "In Minecraft: Multiplayer → Direct Connection → localhost:") || !strings.Contains(out, "ws://play.example.test/mc (connecting to 127.0.0.1:1)") ||
		!strings.Contains(out, "close this window or press Ctrl+C") {
		t.Errorf("startup text %q", out)
	}
}

// A client whose game address is taken (by a Minecraft server on this machine, say) says which
// flag chooses another.
func TestClientBindErrorNamesTheFlag(t *testing.T) {
	taken := testutil.Serve(t, func(net.Conn) {})
	code, _, stderr := run("client", "--url", "ws://127.0.0.1:1/mc", "--listen", taken.Addr().String())
	if code != 1 || !strings.Contains(stderr, "cannot listen on "+taken.Addr().String()) || !strings.Contains(stderr, "another program has that address") ||
		!strings.Contains(stderr, "--listen") {
		t.Errorf("exit %d, stderr %q; want 1, the address and --listen", code, stderr)
	}
}
