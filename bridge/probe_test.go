package bridge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"
)

// Probe says nil for a server that answers the upgrade, and the session's cause for one that
// does not.
func TestProbe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	addr := startServe(t, relay.WS, "", selfSigned(t, time.Hour, "127.0.0.1"), "127.0.0.1:1")
	if err := Probe(ctx, Config{Remote: ws.DialConfig{URL: "ws://" + addr + "/mc"}}); err != nil {
		t.Errorf("a server that answers: %v", err)
	}
	for url, want := range map[string]struct {
		cause   Cause
		summary string
	}{
		"ws://" + addr + "/elsewhere":            {CauseHTTP, "HTTP 404 Not Found: check the path in the URL"},
		"wss://" + addr + "/mc":                  {CauseTLS, "TLS: the server does not speak TLS (ws:// URL?)"},
		"ws://" + testutil.ClosedPort(t) + "/mc": {CauseTCP, "connection refused"},
	} {
		var de *DialError
		err := Probe(ctx, Config{Remote: ws.DialConfig{URL: url}})
		if !errors.As(err, &de) || de.Cause != want.cause || !strings.Contains(de.Summary, want.summary) {
			t.Errorf("%s: %v, want a *DialError %s with %q", url, err, want.cause, want.summary)
		}
	}
}
