package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"
)

// startModesBridge runs a bridge with the modes asked for in front of remote; its log lines go
// to the test and to the returned buffer.
func startModesBridge(t *testing.T, remote ws.DialConfig, early, raw bool) (*Bridge, *testutil.SyncBuffer) {
	t.Helper()
	lines := &testutil.SyncBuffer{}
	remote.RawStream = raw
	b, err := New(Config{Listen: "127.0.0.1:0", Remote: remote, EarlyData: early,
		Logger: zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), lines))})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, lines
}

// waitForLine waits until a log line has every one of parts.
func waitForLine(t *testing.T, lines *testutil.SyncBuffer, parts ...string) {
	t.Helper()
	has := func() bool {
	next:
		for _, line := range strings.Split(lines.String(), "\n") {
			for _, p := range parts {
				if !strings.Contains(line, p) {
					continue next
				}
			}
			return true
		}
		return false
	}
	if !testutil.Within(testutil.WaitBound, has) {
		t.Fatalf("no log line has all of %q:\n%s", parts, lines.String())
	}
}

// TestModesThroughServe: game -> bridge -> moonbridge serve -> backend with early data and the
// raw stream, each and both, on both ends or on the bridge only (the server falls back and the
// bridge with it), over ws and wss with each TLS provider and on each data path: the login and
// a few MiB echo byte-exact, and the bridge's "server connected" line says what was agreed.
func TestModesThroughServe(t *testing.T) {
	const size = 1 << 20
	for _, tr := range bridgeTransports {
		for _, path := range []relay.DataPath{relay.DataPathAuto, relay.DataPathGoroutines} {
			for _, tc := range []struct {
				name                      string
				early, raw                bool
				listener                  relay.Listener
				wantEarly, wantRaw, ended string
			}{
				{"early data", true, false, relay.Listener{EarlyData: 2048}, "used", "off", ""},
				{"early data, bridge only", true, false, relay.Listener{}, "not accepted", "off", ""},
				{"raw", false, true, relay.Listener{RawStream: true}, "off", "on", ""},
				{"raw, bridge only", false, true, relay.Listener{}, "off", "not accepted", ""},
				{"both", true, true, relay.Listener{EarlyData: 2048, RawStream: true}, "used", "on", ""},
				{"early data over the server's limit", true, true, relay.Listener{EarlyData: 16, RawStream: true}, "refused", "on", ""},
			} {
				t.Run(tc.name+"/"+string(path)+"/"+tr.name, func(t *testing.T) {
					cert := selfSigned(t, time.Hour, "127.0.0.1")
					addr := startServeWith(t, tr.protocol, tr.provider, cert, startBackend(t), func(c *relay.Config) {
						c.Listeners[0].EarlyData, c.Listeners[0].RawStream = tc.listener.EarlyData, tc.listener.RawStream
						c.DataPathConfig.DataPath = path
					})
					remote := ws.DialConfig{URL: string(tr.protocol) + "://" + addr + "/mc", TLSConfig: trusting(t, cert), Conn: ws.DefaultConfig()}
					b, lines := startModesBridge(t, remote, tc.early, tc.raw)
					game := dialGame(t, b)
					joinOffline(t, game, "Steve")
					echoCheck(t, game, size)
					waitForLine(t, lines, `"message":"server connected"`, `"early_data":"`+tc.wantEarly+`"`, `"raw_stream":"`+tc.wantRaw+`"`)
					game.Close()
					waitForLine(t, lines, `"message":"session ended"`, `"early_data":"`+tc.wantEarly+`"`, `"close_reason":"the game closed the connection"`)
				})
			}
		}
	}
}

// TestStatusWithModes: a server-list ping goes in the upgrade request too, and over the raw
// stream; the relay has no backend here, so its fallback answers, which proves the ping
// crossed.
func TestStatusWithModes(t *testing.T) {
	addr := startServeWith(t, relay.WS, "", selfSigned(t, time.Hour, "127.0.0.1"), testutil.ClosedPort(t), func(c *relay.Config) {
		c.Listeners[0].EarlyData, c.Listeners[0].RawStream = 2048, true
	})
	b, lines := startModesBridge(t, ws.DialConfig{URL: "ws://" + addr + "/mc"}, true, true)
	if motd := askStatus(t, b); motd != relay.DefaultFallback().Status.MOTD {
		t.Errorf("MOTD %q, want the server's fallback %q", motd, relay.DefaultFallback().Status.MOTD)
	}
	waitForLine(t, lines, `"message":"server connected"`, `"early_data":"used"`, `"raw_stream":"on"`)
}
