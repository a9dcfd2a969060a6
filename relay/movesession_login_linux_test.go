package relay

import (
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// A session whose login the proxy ran moves with the player's AES/CFB8 state (online) or with
// none (offline): after the move the player's cipher and the new server's go on together
// byte-exact both ways, over tcp, ws and wss on BoringSSL, with Go's cipher and the shim's and
// from one into the other; the new server lists the player as vouched for exactly when the
// login was online, and its end line says so. On the goroutines' data path it stays.
func TestMoveSessionsCarryTheLoginCipher(t *testing.T) {
	cases := []struct {
		name             string
		online           bool
		transport        Protocol
		provider         string // the TLS provider, for wss
		fromImpl, toImpl string // login.cipher in the old and the new server
	}{
		{"minecraft go", true, Minecraft, "go", "go", "go"},
		{"minecraft boringssl into go", true, Minecraft, "go", "boringssl", "go"},
		{"minecraft go into boringssl", true, Minecraft, "go", "go", "boringssl"},
		{"ws go", true, WS, "go", "go", "go"},
		{"ws boringssl", true, WS, "go", "boringssl", "boringssl"},
		{"wss boringssl", true, WSS, "boringssl", "boringssl", "boringssl"},
		{"minecraft offline", false, Minecraft, "go", "go", "go"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if (tc.fromImpl == "boringssl" || tc.toImpl == "boringssl") && !gossl.BoringEnabled {
				t.Skip("boringssl is not in this build (pure Go): the cgo pass runs this case")
			}
			backend := authtest.Backend{Forwarding: auth.ForwardVelocity, VelocitySecret: []byte("s3cret"), Compression: true}
			from := startLoginProxyWith(t, tc.online, &backend, tc.provider, tc.fromImpl, nil, tc.transport)
			to, toLog := loginProxyToMoveInto(t, tc.online, tc.provider, cfb8.Impl(tc.toImpl), tc.transport)
			player := authtest.Player{Name: "Alex", Protocol: 767, Sessions: from.sessions}
			conn := dialClient(t, tc.transport, from.addr)
			t.Cleanup(func() { conn.Close() })
			conn.SetDeadline(time.Now().Add(30 * time.Second))
			pc, err := player.Login(conn, "play.example.net")
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			if got := backendLogin(t, &backend); got.Err != nil {
				t.Fatalf("the backend refused the login: %v", got.Err)
			}
			readLoginSuccess(t, pc, backend.Compression)
			echoThrough(t, pc, &backend, 3001)
			waitOnLoopWSS(t, from.srv)
			r := from.srv.MoveSessions(adoptInto(t, to))
			echoThrough(t, pc, &backend, 20000)
			if !movedOne(t, r) {
				return
			}
			if list := from.srv.Sessions(); len(list) != 0 {
				t.Errorf("the old server still lists %+v", list)
			}
			if s := onlySession(t, to); s.Player != "Alex" || s.Online != tc.online {
				t.Errorf("the new server lists %+v, want Alex, online %v", s, tc.online)
			}
			echoThrough(t, pc, &backend, 5000)
			conn.Close()
			testutil.WaitFor(t, "the moved session to end in the new server", func() bool { return len(to.Sessions()) == 0 })
			if n := toLog.count(`"player":"Alex"`, `"online":`+map[bool]string{true: "true", false: "false"}[tc.online]); n != 1 {
				t.Errorf("%d end lines of Alex with online %v in the new server's log:\n%s", n, tc.online, toLog.String())
			}
		})
	}
}

// loginProxyToMoveInto is the new server of a move: the same route as startLoginProxyWith's,
// whose logins run in impl, and its log.
func loginProxyToMoveInto(t *testing.T, online bool, provider string, impl cfb8.Impl, transport Protocol) (*Server, *logLines) {
	t.Helper()
	var lines *logLines
	to, _ := startProxy(t, func(c *Config) {
		lines = captureLog(t, c)
		c.Routes = routeTo(testutil.ClosedPort(t)) // moved sessions keep their backend connection
		c.Routes[0].Login = &auth.Config{Online: online, Forwarding: auth.ForwardVelocity, VelocitySecret: []byte("s3cret"), Keys: authtest.Keys(t),
			Sessions: auth.SessionServer{BaseURL: "http://127.0.0.1:1", Timeout: time.Second}, CipherImpl: impl}
		c.TLS = tlsServer(t, provider)
	}, transport)
	return to, lines
}
