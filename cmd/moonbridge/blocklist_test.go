package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
)

type fakeBlockList struct{ blocked []relay.BlockedNetwork }

func (f *fakeBlockList) BlockList() []relay.BlockedNetwork { return f.blocked }

func (f *fakeBlockList) ClearBlockList() int {
	n := len(f.blocked)
	f.blocked = nil
	return n
}

func TestAdminListsAndClearsTheBlockList(t *testing.T) {
	until := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	src := &fakeBlockList{blocked: []relay.BlockedNetwork{
		{Network: netip.MustParsePrefix("203.0.113.9/32"), Until: until},
		{Network: netip.MustParsePrefix("2001:db8::/64"), Until: until},
	}}
	mux := http.NewServeMux()
	handleBlockList(mux, src, zerolog.Nop())
	server := httptest.NewServer(newAdminGuard(config.Admin{}, zerolog.Nop()).wrap(mux))
	defer server.Close()
	do := func(method, path string, header http.Header) (int, string) {
		t.Helper()
		return adminRequest(t, server, method, path, header)
	}
	want := `{"blocked":[{"network":"203.0.113.9/32","until":"2026-12-01T14:00:00Z"},{"network":"2001:db8::/64","until":"2026-12-01T14:00:00Z"}]}`
	if code, body := do("GET", "/blocklist", nil); code != 200 || body != want {
		t.Errorf("GET /blocklist: %d %s, want %s", code, body, want)
	}
	if code, _ := do("GET", "/blocklist/clear", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /blocklist/clear: %d, want 405", code)
	}
	if code, _ := do("POST", "/blocklist/clear", http.Header{"Sec-Fetch-Site": {"cross-site"}}); code != http.StatusForbidden || len(src.blocked) != 2 {
		t.Errorf("a cross-site POST: %d, list of %d, want 403 and nothing cleared", code, len(src.blocked))
	}
	if code, body := do("POST", "/blocklist/clear", nil); code != 200 || body != `{"cleared":2}` {
		t.Errorf("POST /blocklist/clear: %d %s", code, body)
	}
	if code, body := do("GET", "/blocklist", nil); code != 200 || body != `{"blocked":[]}` {
		t.Errorf("GET /blocklist after clearing: %d %s", code, body)
	}
}

// adminRequest sends one request to an admin endpoint under test and returns its status and
// body.
func adminRequest(t *testing.T, server *httptest.Server, method, path string, header http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, server.URL+path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// Issue 27: an address blocked for garbage is listed on the admin port, and POST
// /blocklist/clear lets it in again.
func TestServeAdminClearsTheBlockList(t *testing.T) {
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.Defence.Block.After = 2
	logs := startServe(t, cfg)
	admin := "http://" + adminAddr(t, logs)
	proxy := waitForLog(t, logs, "Listening on")["addr"]
	garbage := func() {
		conn, err := net.DialTimeout("tcp", proxy, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte("SSH-2.0-x\r\n"))
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		conn.Read(make([]byte, 1)) // until the proxy closes it
	}
	garbage()
	garbage()
	if !testutil.Within(testutil.WaitBound, func() bool {
		return strings.Contains(httpGet(t, admin+"/blocklist"), `"network":"127.0.0.1/32"`)
	}) {
		t.Fatalf("127.0.0.1 not on the block list: %s", httpGet(t, admin+"/blocklist"))
	}
	resp, err := http.Post(admin+"/blocklist/clear", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.TrimSpace(string(body)) != `{"cleared":1}` {
		t.Errorf("POST /blocklist/clear answered %s", body)
	}
	waitForLog(t, logs, "block list cleared by the admin endpoint")
}
