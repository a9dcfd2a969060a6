package relay

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// TestHTTPErrorsGoToTheListenerLog: the HTTP servers behind ws and wss keep the ErrorLog ws gives
// them, so net/http's own errors reach the relay's logger with the listener's fields (ws's
// TestHTTPServerErrorsReachTheLogger provokes a real one through that ErrorLog).
func TestHTTPErrorsGoToTheListenerLog(t *testing.T) {
	var logs testutil.SyncBuffer
	srv, addr := startProxy(t, func(c *Config) { c.Logger = zerolog.New(&logs) }, WS, WSS)
	servers := srv.listeners[0].http
	if len(servers) != 2 {
		t.Fatalf("%d HTTP servers for ws and wss, want 2", len(servers))
	}
	for _, h := range servers {
		if h.ErrorLog == nil {
			t.Fatal("the HTTP server has no ErrorLog: net/http's errors bypass zerolog")
		}
		h.ErrorLog.Print("http: an error of net/http's own")
	}
	var found int
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "an error of net/http's own") {
			found++
			if !strings.Contains(line, `"level":"warn"`) || !strings.Contains(line, `"listener":"`+addr+`"`) {
				t.Errorf("net/http's line lacks the level or the listener: %s", line)
			}
		}
	}
	if found != len(servers) {
		t.Errorf("%d of %d net/http lines reached the relay's log:\n%s", found, len(servers), logs.String())
	}
}

// TestStartupLines: each listener says what it serves in one line; a wss listener names its TLS
// provider and why it was chosen.
func TestStartupLines(t *testing.T) {
	for _, tc := range []struct {
		protocols []Protocol
		want      string
	}{
		{[]Protocol{Minecraft}, `"message":"Listening for Minecraft"`},
		{[]Protocol{Minecraft, WS}, `"message":"Listening for WebSocket"`},
		{[]Protocol{Minecraft, WS, WSS}, `"tls_provider":"go","tls_record_layer":"crypto/tls","reason":"chosen for the test","message":"Listening for WebSocket (TLS via GO)"`},
	} {
		var logs testutil.SyncBuffer
		startProxy(t, func(c *Config) { c.Logger, c.TLSReason = zerolog.New(&logs), "chosen for the test" }, tc.protocols...)
		if !strings.Contains(logs.String(), tc.want) {
			t.Errorf("%v: no %s in\n%s", tc.protocols, tc.want, logs.String())
		}
	}
}
