package relay

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// requiredRoute is one route to backend that requires a token.
func requiredRoute(backend string, mode access.Mode) []Route {
	routes := routeTo(backend)
	routes[0].Access.Tokens = mode
	return routes
}

// startTokenProxy runs a proxy for protocol (over the TLS provider for wss) whose one route
// requires a token checked with keys, and with the query parameter when query is set.
func startTokenProxy(t *testing.T, protocol Protocol, provider string, query bool, keys ...signer) (*Server, string, *testBackend, *logLines) {
	t.Helper()
	backend := startBackend(t, false)
	var lines *logLines
	srv, addr := startProxy(t, func(c *Config) {
		useTransport(t, c, provider)
		c.Routes = requiredRoute(backend.addr(), access.TokensRequired)
		c.Tokens = verifier(t, keys...)
		c.TokenInQuery = query
		lines = captureLog(t, c)
	}, protocol)
	return srv, addr, backend, lines
}

// A token is read from each of its three places, on ws and on wss under both providers, for
// each algorithm; the subject goes on the session's end line.
func TestTokenTransports(t *testing.T) {
	keys := []signer{newSigner(t, access.Ed25519, "ed"), newSigner(t, access.MLDSA65, "ml"), newSigner(t, access.Ed25519MLDSA65, "both")}
	for _, tr := range accessTransports {
		t.Run(tr.name, func(t *testing.T) {
			_, addr, _, lines := startTokenProxy(t, tr.protocol, tr.provider, true, keys...)
			for _, k := range keys {
				tok := k.token(t, "player-"+k.key.ID, nil)
				for via, o := range map[string]wsDial{
					"bearer":      {header: http.Header{"Authorization": {"Bearer " + tok}}},
					"subprotocol": {subprotocols: []string{TokenSubprotocolPrefix + tok, StreamSubprotocol}},
					"query":       {query: url.Values{TokenQueryParameter: {tok}}},
				} {
					c, resp, err := dialAccess(t, tr.protocol, addr, o)
					if err != nil {
						t.Fatalf("%s, %s: %v", k.key.Algorithm, via, err)
					}
					if got := resp.Header.Get("Sec-WebSocket-Protocol"); (via == "subprotocol") != (got == StreamSubprotocol) {
						t.Errorf("%s: the server selected subprotocol %q", via, got)
					}
					wsExchange(t, c, "play.example")
					c.Close()
				}
				waitForLines(t, lines, 3, `"subject":"player-`+k.key.ID+`"`, `"message":"session ended"`)
			}
		})
	}
}

// waitForLines waits until n log lines contain every part.
func waitForLines(t *testing.T, lines *logLines, n int, parts ...string) {
	t.Helper()
	if !testutil.Within(testutil.WaitBound, func() bool { return lines.count(parts...) >= n }) {
		t.Fatalf("%d lines with %q, want %d", lines.count(parts...), parts, n)
	}
}

// Every token refusal is a 401 without detail, before any backend is dialed, counted by reason
// and logged with it.
func TestTokenRefusedAtUpgrade(t *testing.T) {
	good, other := newSigner(t, access.Ed25519, "good"), newSigner(t, access.Ed25519, "other")
	bearer := func(tok string) wsDial { return wsDial{header: http.Header{"Authorization": {"Bearer " + tok}}} }
	cases := []struct {
		name   string
		dial   wsDial
		reason access.Reason
	}{
		{"missing", wsDial{}, access.ReasonMissing},
		{"query parameter while off", wsDial{query: url.Values{TokenQueryParameter: {good.token(t, "a", nil)}}}, access.ReasonMissing},
		{"expired", bearer(good.token(t, "a", func(c *access.Claims) {
			c.NotBefore, c.Expires = time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour)
		})), access.ReasonExpired},
		{"not yet valid", bearer(good.token(t, "a", func(c *access.Claims) {
			c.NotBefore = time.Now().Add(time.Hour)
			c.Expires = time.Now().Add(2 * time.Hour)
		})), access.ReasonNotYetValid},
		{"unknown key", bearer(other.token(t, "a", nil)), access.ReasonUnknownKey},
		{"wrong audience", bearer(good.token(t, "a", func(c *access.Claims) { c.Audience = "elsewhere" })), access.ReasonAudience},
		{"garbage", bearer("not-a-token"), access.ReasonMalformed},
		{"oversized", bearer(strings.Repeat("A", access.MaxTokenLen+1)), access.ReasonOversized},
		{"version 0 by subprotocol", wsDial{subprotocols: []string{TokenSubprotocolPrefix + "AAAA.AAAA", StreamSubprotocol}}, access.ReasonVersion},
	}
	for _, tr := range accessTransports {
		t.Run(tr.name, func(t *testing.T) {
			srv, addr, backend, lines := startTokenProxy(t, tr.protocol, tr.provider, false, good)
			for _, tc := range cases {
				before := deniedCount(t, srv, tc.reason)
				_, resp, err := dialAccess(t, tr.protocol, addr, tc.dial)
				if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
					t.Fatalf("%s: %v, %v; want 401", tc.name, resp, err)
				}
				body, _ := io.ReadAll(resp.Body)
				if strings.TrimSpace(string(body)) != "unauthorized" || resp.Header.Get("WWW-Authenticate") != "Bearer" {
					t.Errorf("%s: the 401 says %q (WWW-Authenticate %q); want no detail", tc.name, body, resp.Header.Get("WWW-Authenticate"))
				}
				waitForMetric(t, srv, "moonbridge_access_denied_total", map[string]string{"reason": string(tc.reason)}, before+1)
			}
			if n := lines.count(`"message":"access denied"`, `"level":"info"`); n != len(cases) {
				t.Errorf("%d log lines for %d refusals", n, len(cases))
			}
			if n := backend.acceptedCount(t); n != 0 {
				t.Errorf("%d connections reached the backend", n)
			}
			if v, _ := metricValue(t, srv, refusedSeries, map[string]string{"reason": refusedHTTPOther}); v != 0 {
				t.Errorf("access refusals were counted as connection refusals too (%v)", v)
			}
		})
	}
}

// optional: no token is fine, a bad one is not, a good one names the subject.
func TestTokensOptional(t *testing.T) {
	k := newSigner(t, access.Ed25519, "k")
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = requiredRoute(backend.addr(), access.TokensOptional)
		c.Tokens = verifier(t, k)
	}, WS)
	c, _, err := dialAccess(t, WS, addr, wsDial{})
	if err != nil {
		t.Fatalf("no token on an optional route: %v", err)
	}
	wsExchange(t, c, "play.example")
	c.Close()
	_, resp, err := dialAccess(t, WS, addr, wsDial{header: http.Header{"Authorization": {"Bearer " + k.token(t, "a", func(c *access.Claims) { c.Audience = "x" })}}})
	if err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a bad token on an optional route: %v, %v", resp, err)
	}
	if deniedCount(t, srv, access.ReasonAudience) != 1 {
		t.Error("the refusal was not counted")
	}
}

// A token with scopes opens only the routes it names; another route refuses it after the
// hello, before its backend is dialed.
func TestTokenScopes(t *testing.T) {
	k := newSigner(t, access.Ed25519, "k")
	lobby, survival := startBackend(t, false), startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Name: "lobby", Hosts: []string{"lobby.example"}, Backends: []pool.Backend{{Addr: lobby.addr()}}, Access: Access{Tokens: access.TokensRequired}},
			{Name: "survival", Hosts: []string{"survival.example"}, Backends: []pool.Backend{{Addr: survival.addr()}}, Access: Access{Tokens: access.TokensRequired}},
		}
		c.Tokens = verifier(t, k)
	}, WS)
	dial := wsDial{header: http.Header{"Authorization": {"Bearer " + k.token(t, "a", func(c *access.Claims) { c.Scopes = []string{"lobby"} })}}}
	c, _, err := dialAccess(t, WS, addr, dial)
	if err != nil {
		t.Fatal(err)
	}
	wsExchange(t, c, "lobby.example")
	c.Close()
	c, _, err = dialAccess(t, WS, addr, dial)
	if err != nil {
		t.Fatal(err)
	}
	wsRefusedAfterHello(t, c, "survival.example")
	c.Close()
	waitForMetric(t, srv, "moonbridge_access_denied_total", map[string]string{"reason": "scope"}, 1)
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "ws", "outcome": "access_denied"}, 1)
	if n := survival.acceptedCount(t); n != 0 {
		t.Errorf("%d connections reached the route the token does not open", n)
	}
}

// A vanilla client over raw TCP cannot carry a token: a route that requires one refuses it
// after the hello (with a disconnect that says no more than "access denied").
func TestRawTCPOnTokenRoute(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = requiredRoute(backend.addr(), access.TokensRequired)
		c.Tokens = verifier(t, newSigner(t, access.Ed25519, "k"))
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	conn.Write(handshakeFrame("play.example", mc.NextLogin))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.ReadAll(conn)
	if !strings.Contains(string(got), "Access denied.") {
		t.Fatalf("got %q", got)
	}
	waitForMetric(t, srv, "moonbridge_access_denied_total", map[string]string{"reason": "missing"}, 1)
	if n := backend.acceptedCount(t); n != 0 {
		t.Errorf("%d connections reached the backend", n)
	}
}

// A route that wants tokens needs keys to check them with.
func TestTokenRouteNeedsKeys(t *testing.T) {
	_, err := New(Config{Routes: requiredRoute("127.0.0.1:1", access.TokensOptional)})
	if err == nil || !strings.Contains(err.Error(), "needs verification keys") {
		t.Fatalf("New: %v", err)
	}
	routes := routeTo("127.0.0.1:1")
	routes[0].Access.Tokens = "sometimes"
	if _, err := New(Config{Routes: routes}); err == nil {
		t.Fatal("an unknown tokens mode was accepted")
	}
}

func TestTokenFrom(t *testing.T) {
	req := func(h http.Header, query string) *http.Request {
		return &http.Request{Header: h, URL: &url.URL{Path: "/mc", RawQuery: query}}
	}
	for _, tc := range []struct {
		name  string
		r     *http.Request
		query bool
		want  string
		found bool
	}{
		{"bearer", req(http.Header{"Authorization": {"Bearer abc"}}, ""), false, "abc", true},
		{"bearer any case", req(http.Header{"Authorization": {"bearer abc"}}, ""), false, "abc", true},
		{"basic is no token", req(http.Header{"Authorization": {"Basic abc"}}, ""), false, "", false},
		{"subprotocol", req(http.Header{"Sec-Websocket-Protocol": {"moonbridge, moonbridge-token.abc"}}, ""), false, "abc", true},
		{"bearer before subprotocol", req(http.Header{"Authorization": {"Bearer one"}, "Sec-Websocket-Protocol": {"moonbridge-token.two"}}, ""), false, "one", true},
		{"query off", req(nil, "access_token=abc"), false, "", false},
		{"query on", req(nil, "access_token=abc"), true, "abc", true},
		{"nothing", req(nil, ""), true, "", false},
	} {
		got, found := TokenFrom(tc.r, tc.query)
		if got != tc.want || found != tc.found {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, found, tc.want, tc.found)
		}
	}
}
