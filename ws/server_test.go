package ws

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// rawRequest sends req over a fresh connection and returns the response.
func rawRequest(t *testing.T, addr, req string) *http.Response {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(nc, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func upgradeReq(path string, extra ...string) string {
	return "GET " + path + " HTTP/1.1\r\nHost: play.example.net\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + strings.Join(extra, "") + "\r\n"
}

func TestServerStatuses(t *testing.T) {
	testutil.CheckGoroutines(t)
	cfg := ServerConfig{
		Conn:           noKeepalive(),
		AllowedOrigins: []string{"https://play.example.net"},
		Subprotocols:   []string{"minecraft"},
		MaxHeaderBytes: 1024,
		Admit: func(r *http.Request) (int, string) {
			switch r.Header.Get("X-Load") {
			case "ip":
				return http.StatusTooManyRequests, "too many connections from your address"
			case "full":
				return http.StatusServiceUnavailable, "server full"
			}
			return 0, ""
		},
	}
	addr := strings.TrimPrefix(startServer(t, cfg, nil, echo), "ws://")
	cases := []struct {
		name, req string
		status    int
	}{
		{"upgrade", upgradeReq("/mc"), http.StatusSwitchingProtocols},
		{"unknown path", upgradeReq("/other"), http.StatusNotFound},
		{"plain GET on the path", "GET /mc HTTP/1.1\r\nHost: x\r\n\r\n", http.StatusUpgradeRequired},
		{"over the per-IP limit", upgradeReq("/mc", "X-Load: ip\r\n"), http.StatusTooManyRequests},
		{"server full", upgradeReq("/mc", "X-Load: full\r\n"), http.StatusServiceUnavailable},
		{"foreign origin", upgradeReq("/mc", "Origin: https://evil.example\r\n"), http.StatusForbidden},
		{"allowed origin", upgradeReq("/mc", "Origin: https://play.example.net\r\n"), http.StatusSwitchingProtocols},
		{"header too large", upgradeReq("/mc", "X-Big: "+strings.Repeat("a", 8000)+"\r\n"), http.StatusRequestHeaderFieldsTooLarge},
		{"HTTP/1.0", strings.Replace(upgradeReq("/mc"), "HTTP/1.1", "HTTP/1.0", 1), http.StatusHTTPVersionNotSupported},
		{"wrong version", strings.Replace(upgradeReq("/mc"), "Version: 13", "Version: 8", 1), http.StatusBadRequest},
	}
	for _, tc := range cases {
		resp := rawRequest(t, addr, tc.req)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		if tc.status == http.StatusUpgradeRequired && resp.Header.Get("Upgrade") != "websocket" {
			t.Errorf("%s: 426 without Upgrade: websocket", tc.name)
		}
	}
	resp := rawRequest(t, addr, upgradeReq("/mc", "Sec-WebSocket-Protocol: other, minecraft\r\n"))
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != "minecraft" {
		t.Errorf("subprotocol %q, want minecraft", got)
	}
	if got := resp.Header.Get("Sec-WebSocket-Extensions"); got != "" {
		t.Errorf("extension %q negotiated; permessage-deflate must stay off", got)
	}
}

// A client that never finishes its header is dropped by the header timeout.
func TestServerHeaderTimeout(t *testing.T) {
	testutil.CheckGoroutines(t)
	addr := strings.TrimPrefix(startServer(t, ServerConfig{ReadHeaderTimeout: 50 * time.Millisecond}, nil, echo), "ws://")
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_, _ = io.WriteString(nc, "GET /mc HTTP/1.1\r\nHost: x\r\n")
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second)) // a bound, not a measurement
	b, err := io.ReadAll(nc)
	if err != nil {
		t.Fatalf("server kept a half-sent request open: %v", err)
	}
	if len(b) > 0 && !bytes.HasPrefix(b, []byte("HTTP/1.1 408")) {
		t.Fatalf("unexpected answer %q", b)
	}
}

// The handler gets the request's headers and the Conn is closed after it.
func TestServerPassesRequestAndClosesAfterHandler(t *testing.T) {
	testutil.CheckGoroutines(t)
	got := make(chan string, 1)
	url := startServer(t, ServerConfig{Conn: noKeepalive()}, nil, func(c *Conn, r *http.Request) {
		got <- r.Header.Get("X-Forwarded-For")
	})
	nc, err := net.Dial("tcp", strings.TrimPrefix(url, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(nc, upgradeReq("/mc", "X-Forwarded-For: 203.0.113.7\r\n"))
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	if xff := <-got; xff != "203.0.113.7" {
		t.Fatalf("X-Forwarded-For %q", xff)
	}
	rest, _ := io.ReadAll(br)
	if f := splitFrames(t, rest); len(f) != 1 || f[0].op != OpClose {
		t.Fatalf("after the handler: %+v, want one close frame", f)
	}
}

// TestHTTPServerErrorsReachTheLogger: net/http's own error lines (here the panic of a handler,
// which it recovers) go to the configured zerolog logger, at error level for a panic.
func TestHTTPServerErrorsReachTheLogger(t *testing.T) {
	var logs testutil.SyncBuffer
	cfg := ServerConfig{Conn: noKeepalive(), Logger: zerolog.New(&logs)}
	url := startServer(t, cfg, nil, func(*Conn, *http.Request) { panic("handler bug") })
	nc, err := net.Dial("tcp", strings.TrimPrefix(url, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(nc, upgradeReq("/mc"))
	_, _ = io.ReadAll(nc) // the server closes the connection after the panic
	testutil.Within(testutil.WaitBound, func() bool { return strings.Contains(logs.String(), "handler bug") })
	line := logs.String()
	if !strings.Contains(line, `"level":"error"`) || !strings.Contains(line, "http: panic serving") ||
		!strings.Contains(line, `"source":"net/http"`) || !strings.Contains(line, "handler bug") {
		t.Errorf("net/http's panic line is not in the log as an error: %q", line)
	}
}

// ServesPath says which paths are upgraded besides Path; others get 404.
func TestServerServesPath(t *testing.T) {
	testutil.CheckGoroutines(t)
	served := map[string]bool{"/creative": true} // besides Path, the default /mc
	cfg := ServerConfig{Conn: noKeepalive(), ServesPath: func(p string) bool { return served[p] }}
	addr := strings.TrimPrefix(startServer(t, cfg, nil, echo), "ws://")
	for path, want := range map[string]int{"/mc": http.StatusSwitchingProtocols, "/creative": http.StatusSwitchingProtocols,
		"/survival": http.StatusNotFound} {
		if resp := rawRequest(t, addr, upgradeReq(path)); resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", path, resp.StatusCode, want)
		}
	}
}
