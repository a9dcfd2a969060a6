package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// loginDisconnect logs a 1.21 player named name in at addr and returns the Login Disconnect's
// text it reads.
func loginDisconnect(t *testing.T, addr, name string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	shape, _, _ := mc.LoginShapeOf(767)
	hs := mc.Handshake{Protocol: 767, Host: "localhost", Port: 25565, NextState: mc.NextLogin}
	conn.Write(mc.AppendLoginStart(hs.AppendFrame(nil, "localhost"), shape, mc.LoginStart{Name: name, HasUUID: true}))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, body, err := mc.NewFrameReader(conn, 4096).ReadFrame()
	if err != nil {
		t.Fatalf("%s: reading the disconnect: %v", name, err)
	}
	return string(body)
}

// serve wires the bans file, the relay and the admin API together: the file's ban holds from
// the start, one added through the API at once, and the reads need the token.
func TestServeBansFromTheFileAndTheAPI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.yaml")
	os.WriteFile(path, []byte("bans:\n  - kind: name\n    value: Griefer\n    reason: spawn griefing\n"), 0o600)
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.Admin.TokenFile = writeAdminToken(t)
	cfg.BansFile = path
	cfg.Routes[0].Backends[0] = "127.0.0.1:1" // no server: a player not banned reads the fallback
	logs := startServe(t, cfg)
	admin, proxy := "http://"+adminAddr(t, logs), waitForLog(t, logs, "Listening on")["addr"]
	if got := loginDisconnect(t, proxy, "griefer"); !strings.Contains(got, "spawn griefing") {
		t.Errorf("the file's banned player read %q", got)
	}
	if got := loginDisconnect(t, proxy, "Steve"); strings.Contains(got, "banned") {
		t.Errorf("a player on no ban read %q", got)
	}
	if code, _ := testutil.BearerCall(t, "GET", admin+"/sessions", "", ""); code != 401 {
		t.Errorf("GET /sessions without the token: %d", code)
	}
	code, body := testutil.BearerCall(t, "POST", admin+"/bans", adminToken, `{"kind":"name","value":"Steve","reason":"x-ray","expires":"1h"}`)
	if code != 201 {
		t.Fatalf("POST /bans: %d %s", code, body)
	}
	if got := loginDisconnect(t, proxy, "Steve"); !strings.Contains(got, "x-ray") || !strings.Contains(got, "Until: ") {
		t.Errorf("the player banned through the API read %q", got)
	}
	if text, _ := os.ReadFile(path); !strings.Contains(string(text), `value: "steve"`) || !strings.Contains(string(text), `value: "griefer"`) {
		t.Errorf("the file after the API's ban:\n%s", text)
	}
	code, body = testutil.BearerCall(t, "GET", admin+"/metrics", "", "")
	if code != 200 || !strings.Contains(body, `moonbridge_ban_refusals_total{kind="name"} 2`) || !strings.Contains(body, `moonbridge_bans{kind="name"} 2`) {
		t.Errorf("metrics: %d, want the bans and refusals counted", code)
	}
}

// A SIGHUP reads the bans file again, whether or not the config file loads.
func TestHangupReadsTheBansFileAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.json")
	os.WriteFile(path, []byte(`{"bans":[{"kind":"name","value":"Alex"}]}`), 0o600)
	cfg := localConfig()
	cfg.BansFile = path
	broken := false
	r, _ := startReloader(t, cfg, func() (config.Config, error) {
		if broken {
			return config.Config{}, os.ErrInvalid
		}
		return cfg, nil
	})
	os.WriteFile(path, []byte(`{"bans":[{"kind":"name","value":"Notch"}]}`), 0o600)
	r.reload()
	if _, ok := r.bans.list.Player("notch", "", time.Now()); !ok {
		t.Error("the reload did not read the bans file again")
	}
	broken = true
	os.WriteFile(path, []byte(`{"bans":[{"kind":"name","value":"Steve"}]}`), 0o600)
	r.reload()
	if _, ok := r.bans.list.Player("steve", "", time.Now()); !ok {
		t.Error("a reload whose config file did not load left the bans file unread")
	}
}

// check-config refuses what serve refuses: a bans file that does not load.
func TestCheckConfigReadsTheBansFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.yaml")
	os.WriteFile(path, []byte("bans:\n  - kind: uuid\n    value: not-a-uuid\n"), 0o600)
	cfg := localConfig()
	cfg.BansFile = path
	if err := prepareAsServe(cfg); err == nil || !strings.Contains(err.Error(), "bans[0]: value") {
		t.Errorf("check-config of a bad bans file: %v", err)
	}
}
