package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

const earlyDataSeries = "moonbridge_ws_early_data_total"

// wsTransports are ws, and wss with each TLS provider (one a build lacks skips).
var wsTransports = []struct {
	name      string
	transport Protocol
	provider  string
}{{"ws", WS, "go"}, {"wss go", WSS, "go"}, {"wss boringssl", WSS, "boringssl"}}

// dialModes opens a WebSocket to the proxy as moonbridge's bridge does, offering early data (a
// login handshake for host) and the raw stream as asked, and sends the handshake itself when
// the proxy did not take it.
func dialModes(t *testing.T, transport Protocol, addr, host string, early, raw bool) *ws.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := ws.DialConfig{URL: string(transport) + "://" + addr + "/mc", TLSConfig: &tls.Config{InsecureSkipVerify: true}, RawStream: raw}
	hs := handshakeFrame(host, mc.NextLogin)
	if early {
		cfg.EarlyData = hs
	}
	c, err := ws.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if !c.EarlyData() {
		if _, err := c.Write(hs); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestWSModesEndToEnd: early data and the raw stream, each and both, offered to a listener that
// takes them or does not: the session reaches the backend with the handshake, the stream
// echoes byte-exact, each mode is on exactly when both ends have it, it is counted and on the end
// line, and on the event loops the session is on a loop while it relays (ws, and wss over
// BoringSSL, whose TLS records are then the raw stream's only codec).
func TestWSModesEndToEnd(t *testing.T) {
	for _, tr := range wsTransports {
		for _, tc := range []struct {
			name                 string
			offerEarly, offerRaw bool
			listener             Listener
			wantEarly, wantRaw   bool
		}{
			{"early data", true, false, Listener{EarlyData: 2048}, true, false},
			{"early data, listener off", true, false, Listener{RawStream: true}, false, false},
			{"raw", false, true, Listener{RawStream: true}, false, true},
			{"raw, listener off", false, true, Listener{EarlyData: 2048}, false, false},
			{"both", true, true, Listener{EarlyData: 2048, RawStream: true}, true, true},
		} {
			t.Run(tc.name+"/"+tr.name, func(t *testing.T) {
				testutil.CheckGoroutines(t)
				backend := startBackend(t, false)
				var lines *logLines
				srv, addr := startProxy(t, func(c *Config) {
					c.Routes = routeTo(backend.addr())
					c.TLS = tlsServer(t, tr.provider)
					c.Listeners[0].EarlyData, c.Listeners[0].RawStream = tc.listener.EarlyData, tc.listener.RawStream
					lines = captureLog(t, c)
				}, tr.transport)
				conn := dialModes(t, tr.transport, addr, "play.example.net", tc.offerEarly, tc.offerRaw)
				if conn.EarlyData() != tc.wantEarly || conn.RawStream() != tc.wantRaw {
					t.Fatalf("early data %v, raw %v; want %v, %v", conn.EarlyData(), conn.RawStream(), tc.wantEarly, tc.wantRaw)
				}
				exchange(t, conn, "", 1<<20)
				if h := backend.lastHello(t); h.Host != "play.example.net" || h.NextState != mc.NextLogin {
					t.Errorf("backend got handshake %+v", h)
				}
				checkOnLoop(t, srv, tr.transport, tr.provider)
				conn.Close()
				wantLine := []string{`"message":"session ended"`}
				if tc.wantEarly || tc.wantRaw {
					wantLine = append(wantLine, `"early_data":`+boolText(tc.wantEarly), `"raw_stream":`+boolText(tc.wantRaw))
				}
				waitForLines(t, lines, 1, wantLine...)
				if !tc.wantEarly && !tc.wantRaw && lines.count(`"message":"session ended"`, `"raw_stream"`) != 0 {
					t.Error("an end line names the modes of a session that had none")
				}
				checkModeCounts(t, srv, tc.offerEarly, tc.wantEarly, tc.wantRaw)
			})
		}
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// checkOnLoop checks, on the loop data path, that the running session is on an event loop when
// its player side can go there.
func checkOnLoop(t *testing.T, srv *Server, transport Protocol, provider string) {
	t.Helper()
	if testDataPath != DataPathLoop || (transport == WSS && provider != "boringssl") {
		return
	}
	if n := srv.engine.Stats().Sessions; n != 1 {
		t.Errorf("%d sessions on the event loops while one relays; want it there", n)
	}
}

// checkModeCounts checks moonbridge_ws_early_data_total and moonbridge_ws_raw_streams_total
// after one session.
func checkModeCounts(t *testing.T, srv *Server, offered, used, raw bool) {
	t.Helper()
	want := map[ws.EarlyDataResult]float64{}
	switch {
	case used:
		want[ws.EarlyDataUsed] = 1
	case offered:
		want[ws.EarlyDataOff] = 1
	}
	for _, r := range ws.EarlyDataResults {
		if v, _ := metricValue(t, srv, earlyDataSeries, map[string]string{"result": string(r)}); v != want[r] {
			t.Errorf("%s{result=%q} = %v, want %v", earlyDataSeries, r, v, want[r])
		}
	}
	wantRaw := 0.0
	if raw {
		wantRaw = 1
	}
	if v, _ := metricValue(t, srv, "moonbridge_ws_raw_streams_total", nil); v != wantRaw {
		t.Errorf("moonbridge_ws_raw_streams_total = %v, want %v", v, wantRaw)
	}
}

// TestEarlyDataRefusedIsCounted: a malformed offer and an oversized one are refused before the
// upgrade (400, 431) with the reason in the body, counted by result and as refusals with reason
// early_data, each logged; no backend is dialed.
func TestEarlyDataRefusedIsCounted(t *testing.T) {
	for _, tr := range wsTransports[:2] {
		t.Run(tr.name, func(t *testing.T) {
			backend := startBackend(t, false)
			var lines *logLines
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(backend.addr())
				c.TLS = tlsServer(t, tr.provider)
				c.Listeners[0].EarlyData = 64
				lines = captureLog(t, c)
			}, tr.transport)
			for _, tc := range []struct {
				offer  []string
				status int
			}{
				{[]string{ws.EarlyDataProtocol, ws.EarlyDataPrefix + "bm90IGJhc2U2NA=="}, 400},
				{[]string{ws.EarlyDataProtocol, ws.EarlyDataPrefix + strings.Repeat("A", 100)}, 431},
			} {
				_, resp, err := dialAccess(t, tr.transport, addr, wsDial{subprotocols: tc.offer})
				if err == nil || resp == nil || resp.StatusCode != tc.status {
					t.Fatalf("offer %.40q: %v, %v; want HTTP %d", tc.offer, resp, err, tc.status)
				}
			}
			waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedEarlyData}, 2)
			for _, r := range []ws.EarlyDataResult{ws.EarlyDataMalformed, ws.EarlyDataTooLarge} {
				waitForMetric(t, srv, earlyDataSeries, map[string]string{"result": string(r)}, 1)
			}
			waitForLines(t, lines, 2, `"message":"connection refused"`, `"reason":"early_data"`)
			if v, _ := metricValue(t, srv, refusedSeries, map[string]string{"reason": refusedHTTP400}); v != 0 {
				t.Errorf("%v http_400 refusals: an early data refusal is counted once, as early_data", v)
			}
			if n := backend.acceptedCount(t); n != 0 {
				t.Errorf("the backend got %d connections", n)
			}
		})
	}
}

// TestThirdPartyClientsUnaffectedByModes: gorilla's client, offering a subprotocol of its own,
// or none, gets today's answer from a listener with both modes on, and plays.
func TestThirdPartyClientsUnaffectedByModes(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Listeners[0].EarlyData, c.Listeners[0].RawStream = 2048, true
	}, WS)
	for _, tc := range []struct {
		offer []string
		want  string
	}{{[]string{"chat"}, ""}, {nil, ""}, {[]string{"chat", StreamSubprotocol}, StreamSubprotocol}} {
		c, _, err := dialAccess(t, WS, addr, wsDial{subprotocols: tc.offer})
		if err != nil {
			t.Fatal(err)
		}
		if c.Subprotocol() != tc.want {
			t.Errorf("offer %q: chose %q, want %q", tc.offer, c.Subprotocol(), tc.want)
		}
		wsExchange(t, c, "play.example.net")
		c.Close()
	}
	checkModeCounts(t, srv, false, false, false)
}

// TestLongEarlyDataKeepsItsPlace: early data longer than the hello reader's buffer (the
// handshake, then 3,000 bytes) reach the backend in order, before what the client sends after
// the upgrade; the session stays on goroutines until they are all read (ws.ErrEarlyDataUnread).
func TestLongEarlyDataKeepsItsPlace(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Listeners[0].EarlyData = ws.MaxEarlyData
	}, WS)
	tail := make([]byte, 3000)
	rand.Read(tail)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := ws.Dial(ctx, ws.DialConfig{URL: "ws://" + addr + "/mc", EarlyData: append(handshakeFrame("play.example.net", mc.NextLogin), tail...)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !conn.EarlyData() {
		t.Fatal("the proxy did not take the early data")
	}
	after := make([]byte, 100<<10)
	rand.Read(after)
	go conn.Write(after)
	got := make([]byte, len(tail)+len(after))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(tail, after...)) {
		t.Fatal("the backend's echo is not the early data's tail and then what followed")
	}
	if srv.engine != nil && srv.engine.Stats().Sessions != 0 {
		t.Error("the session went to an event loop with early data still unread")
	}
}

// TestStartupLineNamesModes: a listener with the bridge's modes on says so on its startup line.
func TestStartupLineNamesModes(t *testing.T) {
	var lines *logLines
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo("127.0.0.1:1")
		c.Listeners[0].EarlyData, c.Listeners[0].RawStream = 2048, true
		lines = captureLog(t, c)
	}, WS)
	waitForLines(t, lines, 1, `"addr":"`+addr+`"`, `"early_data":2048,"raw_stream":true`)
}

// TestEarlyDataDialBeforeAnyFrame: with the early data taken, the proxy dials the backend and
// hands it the handshake from the upgrade request alone: the client has sent nothing since.
func TestEarlyDataDialBeforeAnyFrame(t *testing.T) {
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Listeners[0].EarlyData = 2048
	}, WS)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := ws.Dial(ctx, ws.DialConfig{URL: "ws://" + addr + "/mc", EarlyData: handshakeFrame("early.example.net", mc.NextLogin)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !conn.EarlyData() {
		t.Fatal("the proxy did not take the early data")
	}
	if !testutil.Within(testutil.WaitBound, func() bool { return backend.sawHost("early.example.net") }) {
		t.Fatal("the backend never got the handshake of the early data")
	}
}
