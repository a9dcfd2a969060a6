package bridge

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"
)

// TestPlayerSeesWhyTheServerIsUnreachable: for each way the WebSocket can fail to open, the
// server list shows the cause in the MOTD (and answers the ping), a login is refused with the
// same cause, and a legacy ping gets it in its kick.
func TestPlayerSeesWhyTheServerIsUnreachable(t *testing.T) {
	good := selfSigned(t, time.Hour, "127.0.0.1")
	for _, tc := range []struct {
		name   string
		remote func(t *testing.T) ws.DialConfig
		want   string // in the MOTD, the disconnect message and the kick
	}{
		{"TLS wrong name", func(t *testing.T) ws.DialConfig {
			cert := selfSigned(t, time.Hour, "other.example.test")
			return wssTo(t, cert, trusting(t, cert))
		}, "not valid for 127.0.0.1"},
		{"TLS unknown CA, serve's throwaway certificate", func(t *testing.T) ws.DialConfig {
			return wssTo(t, good, trusting(t, selfSigned(t, time.Hour, "127.0.0.1")))
		}, "unknown authority: the server uses a throwaway certificate; the client setting insecure"},
		{"TLS expired", func(t *testing.T) ws.DialConfig {
			cert := selfSigned(t, -time.Minute, "127.0.0.1")
			return wssTo(t, cert, trusting(t, cert))
		}, "certificate expired on "},
		{"HTTP 404", func(t *testing.T) ws.DialConfig {
			return ws.DialConfig{URL: "ws://" + startServe(t, relay.WS, "", good, "127.0.0.1:1") + "/wrong-path"}
		}, "HTTP 404 Not Found"},
		{"HTTP 403", func(t *testing.T) ws.DialConfig {
			// serve refuses a browser-style Origin of another site, as a CDN rule might refuse us
			h := http.Header{"Origin": {"https://elsewhere.example"}}
			return ws.DialConfig{URL: "ws://" + startServe(t, relay.WS, "", good, "127.0.0.1:1") + "/mc", Header: h}
		}, "HTTP 403 Forbidden"},
		{"TCP refused", func(t *testing.T) ws.DialConfig {
			return ws.DialConfig{URL: "ws://" + testutil.ClosedPort(t) + "/mc"}
		}, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := startBridge(t, tc.remote(t), nil)
			if motd := askStatus(t, b); !strings.Contains(motd, tc.want) || !strings.Contains(motd, "cannot reach the server") {
				t.Errorf("MOTD %q does not name the cause %q", motd, tc.want)
			}
			if reason := askLogin(t, b); !strings.Contains(reason, tc.want) {
				t.Errorf("disconnect %q does not name the cause %q", reason, tc.want)
			}
			if kick := askLegacy(t, b); !strings.Contains(kick, tc.want) {
				t.Errorf("legacy kick %q does not name the cause %q", kick, tc.want)
			}
		})
	}
}

// wssTo serves wss with cert (Go's TLS) and dials it trusting what trust trusts.
func wssTo(t *testing.T, cert gossl.PEMPair, trust *tls.Config) ws.DialConfig {
	t.Helper()
	addr := startServe(t, relay.WSS, "go", cert, "127.0.0.1:1")
	return ws.DialConfig{URL: "wss://" + addr + "/mc", TLSConfig: trust}
}
