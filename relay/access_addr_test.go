package relay

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

const (
	deniedClient  = "203.0.113.9"  // in the deny list
	allowedClient = "198.51.100.4" // in the allow list
)

// addressRoutes: one route whose lists allow 198.51.100.0/24 and 203.0.113.0/24 but deny
// 203.0.113.0/24, so only the allowed client passes and the TCP peer itself (127.0.0.1) does
// not: a pass proves the real address was used.
func addressRoutes(t *testing.T, backend string) []Route {
	routes := routeTo(backend)
	routes[0].Access = Access{Allow: mustTrust(t, "198.51.100.0/24", "203.0.113.0/24"), Deny: mustTrust(t, "203.0.113.0/24")}
	return routes
}

func proxyV1(client string) string { return "PROXY TCP4 " + client + " 127.0.0.1 40000 25565\r\n" }

// Allow and deny lists judge raw TCP by the address a trusted PROXY header names.
func TestAddressListsTCPWithProxyHeader(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Listeners[0].Proxy = ProxyRefuseUntrusted
		c.TrustedProxies = mustTrust(t, "127.0.0.1/32")
		c.Routes = addressRoutes(t, backend.addr())
	}, Minecraft)
	ok := dialFrom(t, "127.0.0.1", addr)
	defer ok.Close()
	ok.Write([]byte(proxyV1(allowedClient)))
	exchange(t, ok, "play.example", 500)

	denied := dialFrom(t, "127.0.0.1", addr)
	defer denied.Close()
	denied.Write(append([]byte(proxyV1(deniedClient)), handshakeFrame("play.example", mc.NextLogin)...))
	denied.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.ReadAll(denied)
	if !strings.Contains(string(got), "Access denied.") {
		t.Fatalf("a denied client got %q", got)
	}
	waitForMetric(t, srv, "moonbridge_access_denied_total", map[string]string{"reason": "address"}, 1)
	if n := backend.acceptedCount(t); n != 1 {
		t.Errorf("%d connections reached the backend, want the allowed one", n)
	}
	// Without a PROXY header the peer itself, 127.0.0.1, is on neither list.
	peer := dialFrom(t, "127.0.0.1", addr)
	defer peer.Close()
	peer.Write(handshakeFrame("play.example", mc.NextLogin))
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedProxy}, 1) // a trusted peer must send one
}

// Allow and deny lists judge WebSocket clients by the address a trusted PROXY header or a
// trusted forwarded header names, on ws and on wss under both providers: a client every route
// of the path refuses gets 403 before the upgrade.
func TestAddressListsWebSocket(t *testing.T) {
	for _, tr := range accessTransports {
		for _, source := range []string{"proxy", "header"} {
			t.Run(source+"/"+tr.name, func(t *testing.T) {
				backend := startBackend(t, false)
				srv, addr := startProxy(t, func(c *Config) {
					useTransport(t, c, tr.provider)
					c.TrustedProxies = mustTrust(t, "127.0.0.1/32")
					if source == "proxy" {
						c.Listeners[0].Proxy = ProxyRefuseUntrusted
					} else {
						c.ClientIPHeaders = []string{"CF-Connecting-IP"}
					}
					c.Routes = addressRoutes(t, backend.addr())
				}, tr.protocol)
				as := func(client string) wsDial {
					if source == "proxy" {
						return wsDial{proxyHeader: proxyV1(client)}
					}
					return wsDial{header: http.Header{"Cf-Connecting-Ip": {client}}}
				}
				c, _, err := dialAccess(t, tr.protocol, addr, as(allowedClient))
				if err != nil {
					t.Fatalf("the allowed client: %v", err)
				}
				wsExchange(t, c, "play.example")
				c.Close()
				_, resp, err := dialAccess(t, tr.protocol, addr, as(deniedClient))
				if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
					t.Fatalf("the denied client: %v, %v; want 403", resp, err)
				}
				waitForMetric(t, srv, "moonbridge_access_denied_total", map[string]string{"reason": "address"}, 1)
				if n := backend.acceptedCount(t); n != 1 {
					t.Errorf("%d connections reached the backend, want the allowed one", n)
				}
			})
		}
	}
}

// When only some routes of a path refuse an address, the upgrade passes and the route the hello
// picks decides, before its backend is dialed.
func TestAddressListPerRouteAfterHello(t *testing.T) {
	open, closed := startBackend(t, false), startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Hosts: []string{"open.example"}, Backends: []pool.Backend{{Addr: open.addr()}}},
			{Hosts: []string{"staff.example"}, Backends: []pool.Backend{{Addr: closed.addr()}}, Access: Access{Allow: mustTrust(t, "10.0.0.0/8")}},
		}
	}, WS)
	c, _, err := dialAccess(t, WS, addr, wsDial{})
	if err != nil {
		t.Fatal(err)
	}
	wsExchange(t, c, "open.example")
	c.Close()
	c, _, err = dialAccess(t, WS, addr, wsDial{})
	if err != nil {
		t.Fatal(err)
	}
	wsRefusedAfterHello(t, c, "staff.example")
	c.Close()
	waitForMetric(t, srv, "moonbridge_access_denied_total", map[string]string{"reason": string(access.ReasonAddress)}, 1)
	if n := closed.acceptedCount(t); n != 0 {
		t.Errorf("%d connections reached the staff backend", n)
	}
}

// A reload brings new verification keys and new address lists to new connections.
func TestReloadTakesNewKeysAndLists(t *testing.T) {
	oldKey, newKey := newSigner(t, access.Ed25519, "2026-10"), newSigner(t, access.MLDSA65, "2026-11")
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = requiredRoute(backend.addr(), access.TokensRequired)
		c.Tokens = verifier(t, oldKey)
	}, WS)
	withToken := func(tok string) wsDial { return wsDial{header: http.Header{"Authorization": {"Bearer " + tok}}} }
	status := func(o wsDial) int {
		t.Helper()
		c, resp, err := dialAccess(t, WS, addr, o)
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return resp.StatusCode
		}
		wsExchange(t, c, "play.example")
		c.Close()
		return http.StatusSwitchingProtocols
	}
	oldTok, newTok := oldKey.token(t, "a", nil), newKey.token(t, "b", nil)
	if s := status(withToken(newTok)); s != http.StatusUnauthorized {
		t.Fatalf("a token of a key not loaded yet: %d", s)
	}
	if _, err := reload(srv, func(c *Config) { c.Tokens = verifier(t, oldKey, newKey) }); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{oldTok, newTok} {
		if s := status(withToken(tok)); s != http.StatusSwitchingProtocols {
			t.Fatalf("during the rotation: %d", s)
		}
	}
	if _, err := reload(srv, func(c *Config) { c.Tokens = verifier(t, newKey) }); err != nil {
		t.Fatal(err)
	}
	if s := status(withToken(oldTok)); s != http.StatusUnauthorized {
		t.Fatalf("a token of the retired key: %d", s)
	}
	if _, err := reload(srv, func(c *Config) {
		c.Routes = requiredRoute(backend.addr(), access.TokensRequired)
		c.Routes[0].Access.Deny = mustTrust(t, "127.0.0.0/8")
	}); err != nil {
		t.Fatal(err)
	}
	if s := status(withToken(newTok)); s != http.StatusForbidden {
		t.Fatalf("a client the new deny list names: %d", s)
	}
	if deniedCount(t, srv, access.ReasonUnknownKey) != 2 || deniedCount(t, srv, access.ReasonAddress) != 1 {
		t.Error("the refusals were not counted by reason")
	}
}
