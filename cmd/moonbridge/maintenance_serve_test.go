package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/freeport"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// maintenanceServe runs serve with the admin endpoint (and its token) on a fixed loopback
// port, and writes its config to a file for `moonbridge maintenance --config`; it returns the
// file, the admin endpoint's URL, the proxy's address and serve's log.
func maintenanceServe(t *testing.T) (file, admin, proxy string, logs *testutil.SyncBuffer) {
	t.Helper()
	port, err := freeport.Loopback()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	cfg.Admin.Listen, cfg.Admin.TokenFile = port, writeAdminToken(t)
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), "moonbridge.yml")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	logs = startServe(t, cfg)
	return file, "http://" + adminAddr(t, logs), waitForLog(t, logs, "Listening on")["addr"], logs
}

// serverList runs a server-list ping against the proxy at addr and returns its status JSON.
func serverList(t *testing.T, addr string) map[string]any {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	hs := mc.Handshake{Protocol: 767, Host: "localhost", Port: 25565, NextState: mc.NextStatus}
	conn.Write(mc.AppendStatusRequest(hs.AppendFrame(nil, "localhost")))
	_, body, err := mc.NewFrameReader(bufio.NewReader(conn), 1<<20).ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	text, err := mc.ParseStatusResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	var status map[string]any
	json.Unmarshal(text, &status)
	return status
}

// `moonbridge maintenance on|status|off` switches the running proxy through its admin
// endpoint: the server list shows the owner's entry, one line says who asked, the metric says
// it, and off opens the route again.
func TestMaintenanceCommandSwitchesTheRunningProxy(t *testing.T) {
	file, admin, proxy, logs := maintenanceServe(t)
	var out bytes.Buffer
	err := runMaintenance([]string{"on", "--config", file, "--motd", `{"text":"At work","color":"gold"}`, "--version", "Work", "--allow", "Steve,Alex"}, &out, io.Discard)
	if err != nil || !strings.Contains(out.String(), "(every route): on=true active=true source=api allow=2") {
		t.Fatalf("maintenance on: %v\n%s", err, out.String())
	}
	status := serverList(t, proxy)
	if d, _ := json.Marshal(status["description"]); string(d) != `{"color":"gold","text":"At work"}` {
		t.Errorf("the server list shows %s, want the maintenance MOTD", d)
	}
	if v, _ := json.Marshal(status["version"]); string(v) != `{"name":"Work","protocol":-1}` {
		t.Errorf("version %s", v)
	}
	line := waitForLog(t, logs, "maintenance on")
	if line["by"] != "the admin endpoint" || !strings.HasPrefix(line["from"], "127.0.0.1:") {
		t.Errorf("the switch's log line %v, want who asked", line)
	}
	if m := httpGet(t, admin+"/metrics"); !strings.Contains(m, `moonbridge_maintenance{route="*"} 1`) {
		t.Errorf("metrics without the route's maintenance:\n%.2000s", m)
	}
	out.Reset()
	if err := runMaintenance([]string{"off", "--config", file}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if m := httpGet(t, admin+"/metrics"); !strings.Contains(m, `moonbridge_maintenance{route="*"} 0`) {
		t.Errorf("metrics after off:\n%.2000s", m)
	}
	if d, _ := json.Marshal(serverList(t, proxy)["description"]); strings.Contains(string(d), "At work") {
		t.Errorf("after off the server list still shows %s", d)
	}
}

// putMaintenance sends body to PUT /maintenance, with the token when token is set.
func putMaintenance(t *testing.T, admin, body string, token bool) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, admin+"/maintenance", strings.NewReader(body))
	if token {
		req.Header.Set("Authorization", "Bearer "+adminToken)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(answer)
}

// What the least trusted writer of PUT /maintenance can send is refused with a status that
// says why, and changes nothing; reading (player names on allowlists) and switching need the
// token.
func TestMaintenanceAPIRefusesBadBodies(t *testing.T) {
	_, admin, _, _ := maintenanceServe(t)
	if code, _ := putMaintenance(t, admin, `{"on":true}`, false); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", code)
	}
	if code, _ := adminCall(t, http.MethodGet, admin+"/maintenance", "", nil); code != http.StatusUnauthorized {
		t.Errorf("reading the allowlist's player names without the token: %d, want 401", code)
	}
	png := iconBase64(t)
	for name, tc := range map[string]struct {
		body string
		code int
		says string
	}{
		"unknown key":      {`{"on":true,"colour":"red"}`, 400, "colour"},
		"two objects":      {`{"on":true}{"on":false}`, 400, "one JSON object"},
		"not JSON":         {`on=true`, 400, "body"},
		"bad motd":         {`{"on":true,"motd":"{\"text\":"}`, 400, "motd"},
		"long message":     {`{"on":true,"message":"` + strings.Repeat("m", 5000) + `"}`, 400, "message"},
		"huge allowlist":   {`{"on":true,"allow":["` + strings.Repeat(`a","`, 1001) + `b"]}`, 400, "allow"},
		"huge body":        {`{"on":true,"motd":"` + strings.Repeat("m", 200<<10) + `"}`, 413, "128 KiB"},
		"not a png":        {`{"on":true,"icon":"aGVsbG8="}`, 400, "icon"},
		"ended":            {`{"on":true,"end":"2020-01-01T00:00:00Z"}`, 400, "passed"},
		"end before start": {`{"on":true,"start":"2099-01-02T00:00:00Z","end":"2099-01-01T00:00:00Z"}`, 400, "end"},
		"no such route":    {`{"route":"creative","on":true}`, 404, "creative"},
		"icon and times":   {`{"on":true,"icon":"` + png + `","start":"2099-01-01T00:00:00Z"}`, 200, `"active":false`},
	} {
		code, answer := putMaintenance(t, admin, tc.body, true)
		if code != tc.code || !strings.Contains(answer, tc.says) {
			t.Errorf("%s: %d %.200s, want %d saying %q", name, code, answer, tc.code, tc.says)
		}
	}
	var got maintenanceAnswer
	code, list := adminCall(t, http.MethodGet, admin+"/maintenance", "", http.Header{"Authorization": {"Bearer " + adminToken}})
	if err := json.Unmarshal([]byte(list), &got); code != http.StatusOK || err != nil {
		t.Fatalf("GET /maintenance with the token: %d %v", code, err)
	}
	if len(got.Entries) != 1 || got.Entries[0].Icon != png || !got.On || got.Active || len(got.Routes) != 1 || got.Routes[0].Route != "*" {
		t.Errorf("GET /maintenance: %+v, want the one entry taken, with its icon, switched on for later", got)
	}
}

// iconBase64 is a 64x64 PNG in base64, as the API takes an icon.
func iconBase64(t *testing.T) string {
	t.Helper()
	url, err := config.ReadIcon(writePNG(t, 64))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(url, "data:image/png;base64,")
}

// writePNG writes a size x size PNG to a file and returns its path.
func writePNG(t *testing.T, size int) string {
	t.Helper()
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, size, size)))
	path := filepath.Join(t.TempDir(), "icon.png")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
