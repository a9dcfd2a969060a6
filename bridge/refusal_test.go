package bridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/relay/relaytest"
	"github.com/moonbridge/moonbridge/ws"
)

// A player whose address is over serve's per-address limit sees the limit, over wss as over
// ws: serve answers 429 with the reason after TLS, and the bridge shows it in the server list
// and the login's disconnect.
func TestPlayerSeesTheLimitThatRefusedThem(t *testing.T) {
	want := "HTTP 429 Too Many Requests: over the limit of 1 connections per address"
	for _, tc := range []struct{ protocol, provider string }{{"ws", ""}, {"wss", "go"}, {"wss", "boringssl"}} {
		t.Run(strings.TrimSpace(tc.protocol+" "+tc.provider), func(t *testing.T) {
			cert := selfSigned(t, time.Hour, "127.0.0.1")
			cfg := relay.Config{
				Listeners: []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Protocol(tc.protocol)}}},
				Routes:    []relay.Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: startBackend(t)}}}},
				WebSocket: ws.ServerConfig{Path: "/mc"},
				Limits:    relay.Limits{MaxConnectionsPerIP: 1},
				Fallback:  relay.DefaultFallback(),
				Logger:    testLogger(t),
			}
			if tc.protocol == "wss" {
				cfg.TLS = tlsServer(t, tc.provider, cert)
			}
			remote := ws.DialConfig{URL: tc.protocol + "://" + relaytest.Start(t, cfg) + "/mc", TLSConfig: trusting(t, cert)}
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			holder, err := ws.Dial(ctx, remote) // upgraded: it holds the address's one slot
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			b := startBridge(t, remote, nil)
			if motd := askStatus(t, b); !strings.Contains(motd, want) {
				t.Errorf("MOTD %q does not name the limit (%q)", motd, want)
			}
			if reason := askLogin(t, b); !strings.Contains(reason, want) {
				t.Errorf("disconnect %q does not name the limit (%q)", reason, want)
			}
		})
	}
}
