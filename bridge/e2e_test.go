package bridge

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"
)

// TestPlayThroughServe: game -> bridge -> moonbridge serve (ws, and wss with each TLS
// provider) -> backend: an offline login, then a few MiB echoed byte-exact both ways.
func TestPlayThroughServe(t *testing.T) {
	const size = 3 << 20
	for _, tc := range bridgeTransports {
		t.Run(tc.name, func(t *testing.T) {
			cert := selfSigned(t, time.Hour, "127.0.0.1")
			addr := startServe(t, tc.protocol, tc.provider, cert, startBackend(t))
			remote := ws.DialConfig{URL: string(tc.protocol) + "://" + addr + "/mc", TLSConfig: trusting(t, cert)}
			b := startBridge(t, remote, nil)
			game := dialGame(t, b)
			joinOffline(t, game, "Steve")
			echoCheck(t, game, size)
		})
	}
}

// TestStatusPassesThrough: with the server up, a server-list ping reaches it; here the relay
// has no backend, so its fallback answers, which proves the ping crossed the WebSocket.
func TestStatusPassesThrough(t *testing.T) {
	addr := startServe(t, relay.WS, "", selfSigned(t, time.Hour, "127.0.0.1"), testutil.ClosedPort(t))
	b := startBridge(t, ws.DialConfig{URL: "ws://" + addr + "/mc"}, nil)
	if motd := askStatus(t, b); motd != relay.DefaultFallback().Status.MOTD {
		t.Errorf("MOTD %q, want the server's fallback %q", motd, relay.DefaultFallback().Status.MOTD)
	}
	if kick := askLegacy(t, b); !strings.Contains(kick, "server reachable") {
		t.Errorf("legacy kick %q does not say the server is reachable", kick)
	}
}

// TestCloseEndsSessions: Close ends a running session; the game sees its connection close.
func TestCloseEndsSessions(t *testing.T) {
	addr := startServe(t, relay.WS, "", selfSigned(t, time.Hour, "127.0.0.1"), startBackend(t))
	b := startBridge(t, ws.DialConfig{URL: "ws://" + addr + "/mc"}, nil)
	game := dialGame(t, b)
	joinOffline(t, game, "Alex")
	b.Close()
	if n, err := game.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read %d bytes, %v after Close; want EOF (the connection closed)", n, err)
	}
}
