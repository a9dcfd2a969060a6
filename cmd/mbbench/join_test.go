package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
)

func TestParseCDNPath(t *testing.T) {
	p, err := parseCDNPath("ws-ed=ws listener.early_data=true bridge.early_data=true bridge.hello_wait=20s listener.max=[1,2]")
	if err != nil {
		t.Fatal(err)
	}
	want := cdnPath{name: "ws-ed", transport: "ws",
		listener: map[string]any{"early_data": true, "max": []any{uint64(1), uint64(2)}},
		bridge:   map[string]any{"early_data": true, "hello_wait": "20s"}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("parsed %#v,\nwant %#v", p, want)
	}
	for _, bad := range []string{"", "ws", "=ws", "x=", "x=udp", "x=tcp bridge.early_data=true", "x=ws early_data=true", "x=ws other.k=v", "x=ws listener.=1", "x=ws listener.k=[1"} {
		if _, err := parseCDNPath(bad); err == nil {
			t.Errorf("parseCDNPath(%q) took it", bad)
		}
	}
	if _, err := parseCDNPaths([]string{"a=tcp", "a=ws"}); err == nil {
		t.Error("two paths of one name were taken")
	}
	f := cdnFlags{serve: "bin/moonbridge", defaultPaths: defaultCDNPaths}
	if err := f.check(); err != nil || len(f.paths) != 3 || f.paths[0].name != "raw" || f.paths[2].transport != "wss" {
		t.Errorf("default paths %+v, %v: want raw=tcp, ws=ws, wss=wss", f.paths, err)
	}
}

func TestParseServeKeysNests(t *testing.T) {
	keys, err := parseServeKeys([]string{"websocket.early_data.max=2048", "websocket.ping=0s", "log.level=debug"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"websocket": map[string]any{"early_data": map[string]any{"max": uint64(2048)}, "ping": "0s"}, "log": map[string]any{"level": "debug"}}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %#v, want %#v", keys, want)
	}
	if _, err := parseServeKeys([]string{"nothing"}); err == nil {
		t.Error("a key without a value was taken")
	}
}

// TestCDNConfigsLoad has moonbridge's own loader read the configs the path writes: a listener
// per path with its keys, the TLS provider, the serve keys; the bridge's URL and keys.
func TestCDNConfigsLoad(t *testing.T) {
	paths, err := parseCDNPaths([]string{"raw=tcp", "ws=ws listener.proxy_header=none", "wss=wss bridge.hello_wait=20s"})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := parseServeKeys([]string{"shutdown.drain_timeout=1s"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cdnBedConfig{paths: paths, tlsProvider: "go", serveKeys: keys}
	text, err := cfg.serveConfig("127.0.0.1:25566")
	if err != nil {
		t.Fatal(err)
	}
	serve := loadConfig(t, "serve.yml", text)
	if len(serve.Listeners) != 3 || serve.Listeners[2].Addr != "10.77.0.2:25602" || len(serve.Listeners[1].Protocols) != 3 {
		t.Errorf("listeners %+v: want one per path on 10.77.0.2:25600+i, every protocol", serve.Listeners)
	}
	if serve.TLS.Provider != "go" || serve.Shutdown.DrainTimeout != time.Second || serve.Log.Level != "warn" || serve.Limits.ConnectionRate < 1000 {
		t.Errorf("tls %+v, shutdown %+v, log %+v, limits %+v: want the provider, the serve key, warn and the raised limits", serve.TLS, serve.Shutdown, serve.Log, serve.Limits)
	}
	if serve.Listeners[1].Proxy != relay.ProxyOff || len(serve.Routes) != 1 || serve.Routes[0].Backends[0] != "127.0.0.1:25566" {
		t.Errorf("listener %+v, routes %+v", serve.Listeners[1], serve.Routes)
	}
	text, err = bridgeConfig(2, paths[2])
	if err != nil {
		t.Fatal(err)
	}
	c := loadConfig(t, "bridge.yml", text).Client
	if c.URL != "wss://10.77.0.2:25602/mc" || c.Listen != "127.0.0.1:25702" || !c.Insecure || c.HelloWait != 20*time.Second {
		t.Errorf("bridge %+v: want the path's listener, its own game port, insecure, the path's key", c)
	}
}

// mbbenchSync is mbbench() with stdout and stderr that take writes from several goroutines, as
// join and wire need: the processes' output is copied in beside mbbench's own lines.
func mbbenchSync(args ...string) (code int, stdout, stderr string) {
	var out, errOut testutil.SyncBuffer
	code = dispatch(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func loadConfig(t *testing.T, name string, text []byte) config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, text, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("moonbridge refuses %s: %v\n%s", name, err, text)
	}
	return cfg
}

// TestJoinThroughTheSimulatedPath runs mbbench join for real, one join a path at a 20 ms round
// trip: no path can be faster than its round trips (raw TCP: the handshake and the login, 2;
// the bridge over ws at least as many, over wss one more for TLS), and each join reaches
// Login Success through moonbridge. Needs root for the namespaces (scripts/expected-skips.txt).
func TestJoinThroughTheSimulatedPath(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: network namespaces and TUN devices")
	}
	bin := moonbridgeBinary(t)
	code, stdout, stderr := mbbenchSync("join", "--serve", bin, "--rtts", "20ms", "--rounds", "1", "--joins", "1", "--warmup", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep joinReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	least := map[string]float64{"raw": 2, "ws": 2, "wss": 3}
	if len(rep.Samples) != 3 {
		t.Fatalf("%d samples, want one per path", len(rep.Samples))
	}
	for _, s := range rep.Samples {
		if rtts := float64(s.LoginSuccess) / float64(20*time.Millisecond); rtts < least[s.Path] {
			t.Errorf("path %s: login success after %.2f RTTs, fewer than its %v round trips", s.Path, rtts, least[s.Path])
		}
	}
	if !strings.Contains(stderr, "link pumps SCHED_FIFO: true") {
		t.Errorf("the link's pumps did not run real-time as root:\n%s", stderr)
	}
}

// TestWireThroughTheSimulatedPath runs mbbench wire for real, one pair of ws and raw TCP: each
// phase's CPU of the proxy, of the bridge (ws only) and the link's bytes are measured, and the
// wire carries at least the TCP payload. Needs root (scripts/expected-skips.txt).
func TestWireThroughTheSimulatedPath(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: network namespaces and TUN devices")
	}
	bin := moonbridgeBinary(t)
	code, stdout, stderr := mbbenchSync("wire", "--serve", bin, "--pairs", "1", "--path", "ws=ws", "--path", "raw=tcp",
		"--connections", "2", "--messages", "200", "--warmup", "20", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep wireReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for i, v := range rep.Comparison.Variants {
		m := rep.Comparison.Summary[i]
		if m[phase.CPUNsPerFrame].Median <= 0 || m[metricTCPPayload].Median <= 0 || m[metricWireBytes].Median < m[metricTCPPayload].Median {
			t.Errorf("%s: proxy CPU %v, payload %v, wire %v per frame: want CPU, and wire bytes at least the payload", v.Name, m[phase.CPUNsPerFrame], m[metricTCPPayload], m[metricWireBytes])
		}
		if _, hasBridge := m[metricBridgeCPU]; hasBridge != (v.Name == "ws") {
			t.Errorf("%s: bridge CPU measured %v, want it for ws only", v.Name, hasBridge)
		}
		if _, ok := m[phase.SegsPerFrame]; ok {
			t.Errorf("%s: segs_per_frame reported: it counts mbbench's own namespace", v.Name)
		}
	}
}
