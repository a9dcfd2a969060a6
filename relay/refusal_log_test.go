package relay

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// Issue 13, defect 10: connections refused before a session (a TLS handshake that fails or
// takes too long, HTTP 400, 404 and 431, nothing said before the sniff timeout, an upgrade that
// dawdles past the handshake timeout) each leave one info line and a count by reason.
func TestRefusalsBeforeASessionAreLoggedAndCounted(t *testing.T) {
	cases := []struct {
		reason    string
		protocols []Protocol
		send      string
		provider  string // of TLS, for wss
	}{
		{refusedTLS, []Protocol{WSS}, "\x16\x03\x01\x00\x05hello", "go"}, // a record that is no ClientHello
		{refusedTLS, []Protocol{WSS}, "\x16\x03\x01\x00\x05hello", "boringssl"},
		{refusedHandshakeTimeout, []Protocol{WSS}, "\x16\x03\x01", "go"}, // a ClientHello that never ends
		{refusedHandshakeTimeout, []Protocol{WSS}, "\x16\x03\x01", "boringssl"},
		{refusedHandshakeTimeout, []Protocol{WS}, "GET /mc HTTP/1.1\r\n", ""},
		{refusedHTTP400, []Protocol{WS}, "GET \x01 HTTP/1.1\r\n\r\n", ""},
		{refusedHTTP404, []Protocol{WS}, "GET /elsewhere HTTP/1.1\r\nHost: x\r\n\r\n", ""},
		{refusedHTTP431, []Protocol{WS}, "GET /mc HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", ""},
		{refusedSniffTimeout, []Protocol{Minecraft, WS}, "", ""},
	}
	for _, tc := range cases {
		name := tc.reason + "/" + string(tc.protocols[0])
		if tc.provider != "" {
			name += " " + tc.provider
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var lines *logLines
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(testutil.ClosedPort(t))
				c.Limits.HandshakeTimeout, c.Limits.SniffTimeout = 500*time.Millisecond, 300*time.Millisecond
				c.WebSocket.MaxHeaderBytes = 1024
				lines = captureLog(t, c)
				if tc.provider != "" {
					c.TLS = tlsServer(t, tc.provider)
				}
			}, tc.protocols...)
			conn := dialFrom(t, "127.0.0.7", addr)
			conn.Write([]byte(tc.send))
			if !closedWithin(conn, 10*time.Second) {
				t.Fatal("the proxy did not close the connection")
			}
			waitForMetric(t, srv, refusedSeries, map[string]string{"reason": tc.reason}, 1)
			if n := lines.count(`"reason":"`+tc.reason+`"`, `"client":"127.0.0.7:`, `"level":"info"`); n != 1 {
				t.Errorf("%d info lines for the refusal, want 1", n)
			}
		})
	}
}

// Issue 13, defect 10: a refused upgrade logged two lines (the ws package's and the relay's).
func TestRefusedUpgradeLogsOneLine(t *testing.T) {
	var lines *logLines
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(startBackend(t, false).addr())
		c.TrustedProxies = mustTrust(t, "127.0.0.1/32")
		c.Limits.MaxConnectionsPerIP = 1
		lines = captureLog(t, c)
	}, WS)
	forwardedFor := func() net.Conn {
		conn := dialFrom(t, "127.0.0.1", addr)
		conn.Write([]byte("GET /mc HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Forwarded-For: 203.0.113.7\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
		return conn
	}
	first := forwardedFor()
	first.SetReadDeadline(time.Now().Add(10 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(first), nil); err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("first client: %v %v", resp, err)
	}
	second := forwardedFor()
	second.SetReadDeadline(time.Now().Add(10 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(second), nil); err != nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second client: %v %v, want 429", resp, err)
	}
	if n := lines.count("refused"); n != 1 {
		t.Errorf("%d lines about the refused upgrade, want 1:\n%s", n, lines.String())
	}
}

// Issue 13, defect 10: a status ping while the backend is down logged a warning and the session
// line; the session line alone says it, and a login's line names the player.
func TestSessionLines(t *testing.T) {
	var lines *logLines
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Hosts: []string{"down.example"}, Backends: []pool.Backend{{Addr: testutil.ClosedPort(t)}}},
			{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr()}}},
		}
		lines = captureLog(t, c)
	}, Minecraft, WS)
	ping := dialFrom(t, "127.0.0.8", addr)
	ping.Write(handshakeFrame("down.example", mc.NextStatus))
	ping.Write([]byte{0x01, 0x00})
	ping.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := readFrameFrom(bufio.NewReader(ping)); err != nil {
		t.Fatal(err)
	}
	ping.Close()

	for _, transport := range []Protocol{Minecraft, WS} {
		player := dialClient(t, transport, addr)
		loginStart := mc.AppendFrame(nil, 0x00, append([]byte("\x05Steve"), make([]byte, 16)...))
		player.Write(append(handshakeFrame("play.example", mc.NextLogin), loginStart...))
		player.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := readFrameFrom(bufio.NewReader(player)); err != nil { // the echoed Login Start
			t.Fatal(err)
		}
		player.Close()
	}
	testutil.WaitFor(t, "Steve's 2 end lines", func() bool { return lines.count(`"player":"Steve"`, "session ended") == 2 })
	// The ping's line is written once its session ends, which may come after the players' on a
	// loaded machine: wait for it, then count every line of that client.
	testutil.WaitFor(t, "the ping's end line", func() bool { return lines.count(`"client":"127.0.0.8:`, "session ended") == 1 })
	// The backend's own "backend dial failed" line (sampled per backend, so a flood of pings does
	// not double the log) is about the backend, not the session.
	if n := lines.count(`"client":"127.0.0.8:`) - lines.count(`"client":"127.0.0.8:`, "backend dial failed"); n != 1 {
		t.Errorf("%d lines for a ping answered by the fallback, want 1:\n%s", n, lines.String())
	}
}
