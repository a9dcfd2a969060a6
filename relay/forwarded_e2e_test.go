package relay

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/ws"
)

// TestForwardedHeadersOverWebSocket: the player's address comes from CF-Connecting-IP or
// X-Forwarded-For only when the TCP peer is a trusted proxy and the header is in the configured
// list, and reaches the backend in the PROXY header.
func TestForwardedHeadersOverWebSocket(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []string
		names   []string // ClientIPHeaders; nil: none, the default
		header  http.Header
		want    string
		secret  string // ForwardSecret's value, in X-Origin-Secret
	}{
		{"trusted CF-Connecting-IP", []string{"127.0.0.0/8"}, []string{"CF-Connecting-IP"}, http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}}, "203.0.113.9", ""},
		{"trusted X-Forwarded-For", []string{"127.0.0.0/8", "198.51.100.0/24"}, []string{"X-Forwarded-For"},
			http.Header{"X-Forwarded-For": {"203.0.113.10, 198.51.100.7"}}, "203.0.113.10", ""},
		{"untrusted peer", []string{"10.0.0.0/8"}, []string{"CF-Connecting-IP"}, http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}}, "127.0.0.1", ""},
		{"header not in the configured list", []string{"127.0.0.0/8"}, []string{"CF-Connecting-IP"},
			http.Header{"X-Real-Ip": {"203.0.113.9"}}, "127.0.0.1", ""},
		{"no headers configured", []string{"127.0.0.0/8"}, []string{},
			http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}}, "127.0.0.1", ""},
		{"none by default", []string{"127.0.0.0/8"}, nil,
			http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}, "X-Forwarded-For": {"203.0.113.10"}}, "127.0.0.1", ""},
		{"with the forward secret", []string{"127.0.0.0/8"}, []string{"CF-Connecting-IP"},
			http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}, "X-Origin-Secret": {"s3cret"}}, "203.0.113.9", "s3cret"},
		{"without the forward secret", []string{"127.0.0.0/8"}, []string{"CF-Connecting-IP"},
			http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}}, "127.0.0.1", "s3cret"},
		{"with a wrong forward secret", []string{"127.0.0.0/8"}, []string{"CF-Connecting-IP"},
			http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}, "X-Origin-Secret": {"s3creT"}}, "127.0.0.1", "s3cret"},
		{"with the forward secret twice", []string{"127.0.0.0/8"}, []string{"CF-Connecting-IP"},
			http.Header{"Cf-Connecting-Ip": {"203.0.113.9"}, "X-Origin-Secret": {"s3cret", "s3cret"}}, "127.0.0.1", "s3cret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backend := startBackend(t, true)
			_, addr := startProxy(t, func(c *Config) {
				c.TrustedProxies, _ = clientaddr.ParseNets("trusted network", tc.trusted)
				c.ClientIPHeaders = tc.names
				c.ForwardSecret = clientaddr.ForwardSecret{Header: "X-Origin-Secret", Value: tc.secret}
				c.Routes = []Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr(), ProxyProtocol: 2}}}}
			}, WS)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := ws.Dial(ctx, ws.DialConfig{URL: "ws://" + addr + "/mc", Header: tc.header})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			exchange(t, conn, "h", 100)
			backend.mu.Lock()
			got := backend.proxies[0].Source.Addr().String()
			backend.mu.Unlock()
			if got != tc.want {
				t.Errorf("backend sees %s, want %s", got, tc.want)
			}
		})
	}
}

// TestBackendResetEndsOnlyItsSession: a backend that resets one session closes that client with
// a reason and leaves the other session running.
func TestBackendResetEndsOnlyItsSession(t *testing.T) {
	testutil.CheckGoroutines(t)
	backend := startBackend(t, false)
	resetter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer resetter.Close()
	go func() {
		c, err := resetter.Accept()
		if err != nil {
			return
		}
		c.Read(make([]byte, 64)) // the handshake has arrived
		c.(*net.TCPConn).SetLinger(0)
		c.Close() // RST
	}()
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Hosts: []string{"reset.example"}, Backends: []pool.Backend{{Addr: resetter.Addr().String()}}},
			{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr()}}},
		}
	}, Minecraft)
	healthy := dialClient(t, Minecraft, addr)
	defer healthy.Close()
	exchange(t, healthy, "ok.example", 1000)

	doomed := dialClient(t, Minecraft, addr)
	defer doomed.Close()
	doomed.Write(handshakeFrame("reset.example", mc.NextLogin))
	if err := firstRead(doomed); err != io.EOF {
		t.Fatalf("the client of a reset backend: %v, want EOF (closed)", err)
	}
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "backend_error"}, 1)
	exchange(t, healthy, "", 1000)
}
