package relay

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay/pool"
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

// TestStartupLines: each listener says in one line where it listens, what it serves and where
// players go; a wss listener names its TLS provider, and the fields say why it was chosen.
func TestStartupLines(t *testing.T) {
	for _, tc := range []struct {
		protocols []Protocol
		want      string
	}{
		{[]Protocol{Minecraft}, `"message":"Listening on ADDR for Minecraft: * -> 127.0.0.1:1"`},
		{[]Protocol{Minecraft, WS}, `"message":"Listening on ADDR for Minecraft and ws: * -> 127.0.0.1:1"`},
		{[]Protocol{Minecraft, WS, WSS}, `"tls_provider":"go","tls_record_layer":"crypto/tls","reason":"chosen for the test","message":"Listening on ADDR for Minecraft, ws and wss (TLS: Go crypto/tls): * -> 127.0.0.1:1"`},
	} {
		var logs testutil.SyncBuffer
		_, addr := startProxy(t, func(c *Config) {
			c.Logger, c.TLSReason = zerolog.New(&logs), "chosen for the test"
			c.Routes = []Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: "127.0.0.1:1"}}}}
		}, tc.protocols...)
		if want := strings.ReplaceAll(tc.want, "ADDR", addr); !strings.Contains(logs.String(), want) {
			t.Errorf("%v: no %s in\n%s", tc.protocols, want, logs.String())
		}
	}
}

// The line names every route a listener's players can reach, with all its hosts and backends;
// a route limited to WebSocket paths is not one a Minecraft-only listener's players reach.
func TestStartupLineNamesRoutes(t *testing.T) {
	routes := []Route{
		{Hosts: []string{"play.example.net", "mc.example.net"}, Backends: []pool.Backend{{Addr: "10.0.0.5:25565"}, {Addr: "10.0.0.6:25565"}}},
		{Hosts: []string{"*"}, Paths: []string{"/creative"}, Backends: []pool.Backend{{Addr: "10.0.0.7:25565"}}},
		{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: "127.0.0.1:25565"}}},
	}
	router, err := NewRouter(routes)
	if err != nil {
		t.Fatal(err)
	}
	got := startupLine("0.0.0.0:443", []Protocol{Minecraft, WS, WSS}, "boringssl", router.routesFor([]Protocol{Minecraft, WS, WSS}))
	want := "Listening on 0.0.0.0:443 for Minecraft, ws and wss (TLS: BoringSSL): play.example.net,mc.example.net -> 10.0.0.5:25565, 10.0.0.6:25565; * on /creative -> 10.0.0.7:25565; * -> 127.0.0.1:25565"
	if got != want {
		t.Errorf("startup line\n%s\nwant\n%s", got, want)
	}
	got = startupLine("0.0.0.0:25565", []Protocol{Minecraft}, "", router.routesFor([]Protocol{Minecraft}))
	if want := "Listening on 0.0.0.0:25565 for Minecraft: play.example.net,mc.example.net -> 10.0.0.5:25565, 10.0.0.6:25565; * -> 127.0.0.1:25565"; got != want {
		t.Errorf("Minecraft-only startup line\n%s\nwant\n%s", got, want)
	}
}
