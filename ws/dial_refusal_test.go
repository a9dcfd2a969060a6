package ws

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A refused upgrade's short plain-text body is its HandshakeError's Text, so a client can say
// why; an HTML page (a CDN's error page) or a long body is not.
func TestDialKeepsTheRefusalText(t *testing.T) {
	testutil.CheckGoroutines(t)
	reason := "over the limit of 1 connections per address"
	refusing := startServer(t, ServerConfig{Conn: noKeepalive(), Admit: func(*http.Request) (int, string) {
		return http.StatusTooManyRequests, reason
	}}, nil, echo)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/long" {
			http.Error(w, strings.Repeat("a", maxRefusalText+1), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<html><body>Bad gateway</body></html>"))
	}))
	defer page.Close()
	pageURL := "ws" + strings.TrimPrefix(page.URL, "http")
	for url, want := range map[string]string{refusing + "/mc": reason, pageURL + "/mc": "", pageURL + "/long": ""} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := Dial(ctx, DialConfig{URL: url})
		cancel()
		var refused *HandshakeError
		if !errors.As(err, &refused) || refused.StatusCode < 400 || refused.Text != want {
			t.Errorf("%s: %#v (%v), want a refusal with text %q", url, refused, err, want)
		}
	}
}
