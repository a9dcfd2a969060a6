package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"
)

// Behind a trusted proxy, a header the player sends is believed only when client_ip_headers
// names it (issue 13, defect 7: by default CF-Connecting-IP was believed behind nginx).
func TestClientIPHeadersBehindTrustedProxy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers []string // nil: the default
		sent    http.Header
		want    string // the session's client address, without the port
	}{
		{"default believes no header", nil, http.Header{"Cf-Connecting-Ip": {"6.6.6.6"}, "X-Forwarded-For": {"6.6.6.7"}}, "127.0.0.1"},
		{"X-Forwarded-For when named", []string{"X-Forwarded-For"}, http.Header{"Cf-Connecting-Ip": {"6.6.6.6"}, "X-Forwarded-For": {"203.0.113.7"}}, "203.0.113.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backend := closingBackend(t)
			cfg := config.Default()
			cfg.Listeners = []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.WS}}}
			cfg.Routes = []config.Route{{Hosts: []string{"*"}, Backends: []string{backend}}}
			cfg.TrustedProxies = []string{"127.0.0.1/32"}
			if tc.headers != nil {
				cfg.ClientIPHeaders = tc.headers
			}
			logs := startServe(t, cfg)
			addr := waitForLog(t, logs, "Listening on ")["addr"]
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := ws.Dial(ctx, ws.DialConfig{URL: "ws://" + addr + "/mc", Header: tc.sent})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write(statusPing()); err != nil {
				t.Fatal(err)
			}
			client := waitForLog(t, logs, "session ended")["client"]
			if host, _, _ := net.SplitHostPort(client); host != tc.want {
				t.Errorf("session client %q, want %s", client, tc.want)
			}
		})
	}
}

// closingBackend accepts connections, reads their first bytes and closes them.
func closingBackend(t *testing.T) string {
	return fakeBackend(t, func(conn net.Conn) {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		conn.Read(make([]byte, 256))
	})
}

// fakeBackend runs serve on each connection to a new loopback listener, then closes it.
func fakeBackend(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer conn.Close(); serve(conn) }()
		}
	}()
	return ln.Addr().String()
}

// waitForLog returns the string fields of the first JSON log line whose message starts with
// prefix.
func waitForLog(t *testing.T, logs *testutil.SyncBuffer, prefix string) map[string]string {
	t.Helper()
	var fields map[string]string
	if !testutil.Within(testutil.WaitBound, func() bool { fields = findLog(logs.String(), prefix); return fields != nil }) {
		t.Fatalf("no log line %q in %s", prefix, logs.String())
	}
	return fields
}

// findLog returns the string fields of the first JSON line of log whose message starts with
// prefix, or nil.
func findLog(log, prefix string) map[string]string {
	for _, line := range strings.Split(log, "\n") {
		var fields map[string]any
		if json.Unmarshal([]byte(line), &fields) != nil {
			continue
		}
		if msg, _ := fields["message"].(string); strings.HasPrefix(msg, prefix) {
			out := map[string]string{}
			for k, v := range fields {
				if s, ok := v.(string); ok {
					out[k] = s
				}
			}
			return out
		}
	}
	return nil
}
