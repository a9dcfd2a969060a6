package relay

import (
	"bytes"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// creativeHost is the host-routed route's name in these tests; every other host goes to the
// lobby ("*").
const creativeHost = "creative.example.net"

// hostRoutes are two routes in front of two backends: creativeHost's and everyone else's.
func hostRoutes(creative, lobby *playtest.Backend) []Route {
	routes := routeTo(lobby.Addr)
	return append([]Route{{Hosts: []string{creativeHost}, Backends: []pool.Backend{{Addr: creative.Addr}}}}, routes...)
}

// secondInstance starts the instance a drain sends players to: the routes, and its own
// checker of the shared secret's cookies (its own seen-set, as another process has).
func secondInstance(t *testing.T, routes []Route) (*Server, instanceAddr) {
	t.Helper()
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routes
		c.Transfer.Cookies = NewTransferCookies([]byte("shared secret"), 0)
	}, Minecraft)
	ap := addrPort(t, addr)
	return srv, instanceAddr{ap.Addr().String(), ap.Port()}
}

// instanceAddr is where a Transfer sends a player: host and port.
type instanceAddr struct {
	host string
	port uint16
}

func (a instanceAddr) String() string { return net.JoinHostPort(a.host, strconv.Itoa(int(a.port))) }

// drainFrom joins Steve to a first instance at host, drains it towards second and returns the
// Transfer the player got (the client has left the first instance).
func drainFrom(t *testing.T, routes []Route, host string, second instanceAddr) playtest.Transfer {
	t.Helper()
	first, addr := startProxy(t, func(c *Config) {
		c.Routes = routes
		c.Transfer = Transfer{Host: second.host, Port: second.port, Cookies: NewTransferCookies([]byte("shared secret"), 0)}
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	cl, err := playtest.Join(conn, host, 25565, "Steve", 2, nil)
	if err != nil {
		conn.Close()
		t.Fatalf("join the first instance at %s: %v", host, err)
	}
	defer cl.Close()
	result := drainInBackground(t, first, time.Minute)
	tr, err := awaitTransfer(t, cl)
	if err != nil {
		t.Fatalf("waiting for the Transfer: %v", err)
	}
	cl.Close()
	drainResult(t, result)
	return tr
}

// joinSecond makes the transfer login the client makes after tr, showing cookies, and checks
// an echo there.
func joinSecond(t *testing.T, second instanceAddr, tr playtest.Transfer, cookies map[string][]byte) {
	t.Helper()
	again, err := playtest.Join(dialClient(t, Minecraft, second.String()), tr.Host, tr.Port, "Steve", 3, cookies)
	if err != nil {
		t.Fatalf("the transfer login: %v", err)
	}
	defer again.Close()
	if err := again.Echo(bytes.Repeat([]byte("after"), 100)); err != nil {
		t.Fatalf("echo after the transfer: %v", err)
	}
}

// TestDrainedPlayerLandsOnItsOwnRoute: a raw TCP player of a host-routed route, drained to
// transfer_to (here the second instance's address, which the routes match with "*"), lands on
// the route it left, by the host in its signed cookie: its backend sees the transfer login,
// with the host the player used, and the lobby sees nobody.
func TestDrainedPlayerLandsOnItsOwnRoute(t *testing.T) {
	creative := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	lobby := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	routes := hostRoutes(creative, lobby)
	_, second := secondInstance(t, routes)
	tr := drainFrom(t, routes, creativeHost, second)
	joinSecond(t, second, tr, tr.Cookies)
	logins := creative.Logins()
	if len(logins) != 2 || logins[1].Host != creativeHost {
		t.Errorf("the creative backend's logins %+v, want two, the second for host %s", logins, creativeHost)
	}
	if n := len(lobby.Logins()); n != 0 {
		t.Errorf("the lobby got %d logins, want none: the moved player landed on another server", n)
	}
}

// TestTransferCookieChoosesNoRouteUnlessBelieved: a transfer login whose cookie is not
// believed (none, another secret's, another player's, shown twice) is routed by its
// handshake's host, as any login: a client can send any cookie.
func TestTransferCookieChoosesNoRouteUnlessBelieved(t *testing.T) {
	creative := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	lobby := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	routes := hostRoutes(creative, lobby)
	srv, second := secondInstance(t, routes)
	tr := playtest.Transfer{Host: second.host, Port: second.port}
	forged := NewTransferCookies([]byte("another secret"), 0).issue("Steve", creativeHost)
	alex := NewTransferCookies([]byte("shared secret"), 0).issue("Alex", creativeHost)
	valid := NewTransferCookies([]byte("shared secret"), 0).issue("Steve", creativeHost)
	shown := func(cookie []byte) map[string][]byte { return map[string][]byte{TransferCookieKey: cookie} }
	for _, cookies := range []map[string][]byte{nil, shown(forged), shown(alex), shown(valid), shown(valid)} {
		joinSecond(t, second, tr, cookies)
	}
	if n := len(creative.Logins()); n != 1 {
		t.Errorf("the creative backend got %d logins, want 1: only the valid cookie, shown first", n)
	}
	if n := len(lobby.Logins()); n != 4 {
		t.Errorf("the lobby got %d logins, want 4", n)
	}
	for result, want := range map[string]float64{"valid": 1, "absent": 1, "rejected": 2, "replayed": 1} {
		if n := metricCount(t, srv, "moonbridge_transfer_cookies_total", map[string]string{"result": result}); n != want {
			t.Errorf("moonbridge_transfer_cookies_total{result=%s} %v, want %v", result, n, want)
		}
	}
}

// TestTransferCookieIsCheckedOnceOnARouteThatRunsTheLogin: on a route whose login the proxy
// runs, the login reads the Login Start the check before the route put back, and the cookie
// that check believed is the login's too: counted once, as valid, not as replayed by a
// second check.
func TestTransferCookieIsCheckedOnceOnARouteThatRunsTheLogin(t *testing.T) {
	creative := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	lobby := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	cookies := NewTransferCookies([]byte("shared secret"), 0)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = hostRoutes(creative, lobby)
		c.Routes[0].Login = &auth.Config{TransferCookies: cookies}
		c.Transfer.Cookies = cookies
	}, Minecraft)
	ap := addrPort(t, addr)
	second := instanceAddr{ap.Addr().String(), ap.Port()}
	valid := NewTransferCookies([]byte("shared secret"), 0).issue("Steve", creativeHost)
	joinSecond(t, second, playtest.Transfer{Host: second.host, Port: second.port}, map[string][]byte{TransferCookieKey: valid})
	if logins := creative.Logins(); len(logins) != 1 || logins[0].Name != "Steve" {
		t.Errorf("the creative backend's logins %+v, want Steve's", logins)
	}
	for result, want := range map[string]float64{"valid": 1, "replayed": 0} {
		if n := metricCount(t, srv, "moonbridge_transfer_cookies_total", map[string]string{"result": result}); n != want {
			t.Errorf("moonbridge_transfer_cookies_total{result=%s} %v, want %v", result, n, want)
		}
	}
}
