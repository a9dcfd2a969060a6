package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/mc/auth"
)

func TestFloodAgainstServedMoonbridge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts moonbridge and floods it for a few seconds")
	}
	extra := filepath.Join(t.TempDir(), "extra.yml")
	if err := os.WriteFile(extra, []byte("limits:\n  handshake_timeout: 1s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := serveRun("flood", "--serve", moonbridgeBinary(t), "--backend", "127.0.0.1:0",
		"--classes", "malformed,online", "--rates", "100", "--duration", "2s", "--warmup", "1s", "--cooldown", "200ms",
		"--hold", "5s", "--players", "6", "--direct-players", "2", "--max-open", "200", "--source-networks", "16",
		"--config-extra", extra, "--defences", "test", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep flood.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Defences != "test" || len(rep.Steps) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, st := range rep.Steps {
		f := st.Flood
		if f.Started < 150 || f.Started > 201 || f.Sources != 16*254 && f.Sources != f.Started {
			t.Errorf("%s: started %d from %d addresses, want about 200 from as many", st.Class, f.Started, f.Sources)
		}
		if st.Players != 6 || st.Alive != 6 || st.Broken != 0 || st.ProxyN == 0 || st.DirectN == 0 {
			t.Errorf("%s: players %d alive %d broken %d, round trips %d/%d", st.Class, st.Players, st.Alive, st.Broken, st.ProxyN, st.DirectN)
		}
		if st.ProxyCores <= 0 || st.RSSKiB <= 0 || st.FDs <= 0 {
			t.Errorf("%s: proxy %.3f cores, %d KiB, %d fds", st.Class, st.ProxyCores, st.RSSKiB, st.FDs)
		}
		if !hasCounter(st.Counters, "moonbridge_sessions_total") {
			t.Errorf("%s: counters %v lack moonbridge_sessions_total", st.Class, st.Counters)
		}
	}
	// Every online login is answered (logged in, or refused by the login meter) within the hold
	// but those the meter queues, one per source network (16 of 200, within the tenth allowed),
	// and the session server is asked at most what the default meter allows over the run (under
	// 10 s). The hold is 5 s because an online login takes the generator and the proxy several
	// steps each: on a loaded 2-core machine 2 s left up to 79 of 200 logins waiting with their
	// answer on its way.
	meter := auth.DefaultMeterSettings()
	allowed := meter.Burst + int(10*meter.Rate)
	online := rep.Steps[1]
	t.Logf("online: %+v, %d hasJoined requests", online.Flood, online.HasJoined)
	if online.Flood.Answered < online.Flood.Started*9/10 || online.HasJoined < 1 || online.HasJoined > allowed {
		t.Errorf("online: %d of %d answered, %d hasJoined requests; want 1 to %d; flood %+v; counters %v", online.Flood.Answered, online.Flood.Started, online.HasJoined, allowed, online.Flood, online.Counters)
	}
}

func hasCounter(cs []flood.Change, name string) bool {
	for _, c := range cs {
		if strings.HasPrefix(c.Series, name+"{") || c.Series == name {
			return true
		}
	}
	return false
}

func TestFloodConfigMergesExtraOverBase(t *testing.T) {
	dir := t.TempDir()
	extra := filepath.Join(dir, "extra.yml")
	if err := os.WriteFile(extra, []byte("limits:\n  max_connections: 7\nlog:\n  level: info\nlogin:\n  session_timeout: 2s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path, err := writeFloodConfig(dir, floodServed{backend: "127.0.0.1:1", sink: "127.0.0.1:2", sessionServer: "http://127.0.0.1:3",
		adminAddr: "127.0.0.1:4"}, extra)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Log    struct{ Level string }
		Admin  struct{ Listen string }
		Limits map[string]int
		Routes []struct {
			Name, Auth string
			Hosts      []string
			Backends   []string
		}
		Access struct{ Keys []string }
		Login  map[string]string
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if cfg.Log.Level != "info" || cfg.Admin.Listen != "127.0.0.1:4" || cfg.Limits["max_connections"] != 7 ||
		cfg.Login["session_server"] != "http://127.0.0.1:3" || cfg.Login["session_timeout"] != "2s" {
		t.Errorf("merged config %+v:\n%s", cfg, b)
	}
	if len(cfg.Routes) != 4 || cfg.Routes[0].Auth != "online" || cfg.Routes[1].Backends[0] != "127.0.0.1:2" || cfg.Routes[3].Backends[0] != "127.0.0.1:1" {
		t.Errorf("routes %+v", cfg.Routes)
	}
	if _, err := os.Stat(cfg.Access.Keys[0]); err != nil {
		t.Errorf("token key: %v", err)
	}
}

// The epoll engine's canned bytes are what moonbridge takes: pings over ws are answered, and a
// canned ClientHello gets the server's first flight; the flood's threads report their CPU.
func TestFloodEpollEngineAgainstServedMoonbridge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts moonbridge and floods it for a few seconds")
	}
	code, stdout, stderr := serveRun("flood", "--serve", moonbridgeBinary(t), "--backend", "127.0.0.1:0",
		"--engine", "epoll", "--via", "ws", "--classes", "ping,tlshello", "--rates", "100", "--duration", "1s",
		"--warmup", "500ms", "--cooldown", "100ms", "--hold", "3s", "--players", "3", "--direct-players", "1",
		"--max-open", "200", "--source-networks", "16", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep flood.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(rep.Steps) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, st := range rep.Steps {
		f := st.Flood
		if f.Started < 90 || f.Answered != f.Started || f.FloodCores <= 0 {
			t.Errorf("%s over ws: %d answered of %d started, flood threads %.3f cores; want every one answered: %+v",
				st.Class, f.Answered, f.Started, f.FloodCores, f)
		}
	}
}

func TestFloodEngineRefusesClassesItCannotSendBeforeRunning(t *testing.T) {
	for _, args := range [][]string{
		{"--engine", "epoll", "--classes", "online"},
		{"--engine", "epoll", "--via", "wss", "--classes", "ping"},
		{"--engine", "threads"},
		{"--tls-client", "rsa"},
	} {
		code, _, stderr := serveRun(append([]string{"flood", "--serve", "/nonexistent/moonbridge"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, want 2 (usage) before anything starts\n%s", args, code, stderr)
		}
	}
}
