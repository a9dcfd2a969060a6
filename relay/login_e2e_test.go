package relay

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"io"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// loginSetup is a proxy whose one route runs the logins, in front of a checking backend.
type loginSetup struct {
	srv      *Server
	addr     string
	sessions *authtest.SessionServer
	backend  *authtest.Backend
	lines    *logLines // the proxy's log
}

func startLoginProxy(t *testing.T, online bool, backend *authtest.Backend, tlsProvider string, protocols ...Protocol) loginSetup {
	t.Helper()
	return startLoginProxyWith(t, online, backend, tlsProvider, "go", nil, protocols...)
}

// startLoginProxyWith is startLoginProxy with the player side's cipher named as login.cipher
// names it: "go" (mc/cfb8) or "boringssl" (mc/cfb8's NewBoringPair, skipped in a pure-Go build), and the
// route changed by edit (when not nil).
func startLoginProxyWith(t *testing.T, online bool, backend *authtest.Backend, tlsProvider, cipherImpl string, edit func(*Route), protocols ...Protocol) loginSetup {
	t.Helper()
	var newCipher func([]byte) (cipher.Stream, cipher.Stream, error)
	if cipherImpl == "boringssl" {
		if !gossl.BoringEnabled {
			t.Skip("boringssl is not in this build (pure Go): run `make native` and test with -tags boringssl")
		}
		newCipher = cfb8.NewBoringPair
	}
	return startLoginProxyConfig(t, online, backend, func(c *Config) {
		c.Routes[0].Login.NewCipher = newCipher
		if edit != nil {
			edit(&c.Routes[0])
		}
		c.TLS = tlsServer(t, tlsProvider)
	}, protocols...)
}

// startLoginProxyConfig is startLoginProxy with the proxy's configuration changed by mutate
// (when not nil), its one route's login made already.
func startLoginProxyConfig(t *testing.T, online bool, backend *authtest.Backend, mutate func(*Config), protocols ...Protocol) loginSetup {
	t.Helper()
	ss := authtest.NewSessionServer(t)
	backend.Got = make(chan authtest.BackendLogin, 4)
	backend.Received = new(testutil.SyncBuffer)
	ln := testutil.Serve(t, backend.Serve)
	cfg := &auth.Config{Online: online, Forwarding: backend.Forwarding, VelocitySecret: []byte("s3cret"),
		Keys: authtest.Keys(t), Sessions: auth.SessionServer{BaseURL: ss.URL, Timeout: 2 * time.Second}}
	var lines *logLines
	srv, addr := startProxy(t, func(c *Config) {
		lines = captureLog(t, c)
		c.Routes = routeTo(ln.Addr().String())
		c.Routes[0].Login = cfg
		c.Limits.ConnectionRate, c.Limits.ConnectionBurst = 1000, 1000 // a test logs many players in
		if mutate != nil {
			mutate(c)
		}
	}, protocols...)
	return loginSetup{srv: srv, addr: addr, sessions: ss, backend: backend, lines: lines}
}

// TestOnlineLoginEndToEnd: an online-mode player logs in through the proxy to an offline
// backend with each forwarding, over tcp, ws and wss (both TLS providers), and then 300000
// bytes go each way byte-exact through the player's cipher, Go's or BoringSSL's (TestMain runs
// it on both data paths).
func TestOnlineLoginEndToEnd(t *testing.T) {
	transports := []struct {
		name      string
		transport Protocol
		provider  string
		cipher    string // login.cipher
	}{{"minecraft", Minecraft, "go", "go"}, {"minecraft cfb8 boringssl", Minecraft, "go", "boringssl"}, {"ws", WS, "go", "go"},
		{"wss go", WSS, "go", "go"}, {"wss boringssl", WSS, "boringssl", "boringssl"}}
	backends := map[string]authtest.Backend{
		"none":                 {Forwarding: auth.ForwardNone},
		"bungeecord":           {Forwarding: auth.ForwardBungeeCord},
		"velocity":             {Forwarding: auth.ForwardVelocity, VelocitySecret: []byte("s3cret"), VelocityVersion: 4},
		"velocity compression": {Forwarding: auth.ForwardVelocity, VelocitySecret: []byte("s3cret"), Compression: true},
	}
	for _, tr := range transports {
		for name, b := range backends {
			t.Run(name+" "+tr.name, func(t *testing.T) {
				backend := b
				setup := startLoginProxyWith(t, true, &backend, tr.provider, tr.cipher, nil, tr.transport)
				player := authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions}
				pc := loginThrough(t, setup, tr.transport, player)
				got := backendLogin(t, &backend)
				if got.Err != nil {
					t.Fatalf("the backend refused the login: %v", got.Err)
				}
				checkForwarded(t, backend.Forwarding, got.Forwarded, authfake.Profile("Alex"))
				readLoginSuccess(t, pc, backend.Compression)
				echoThrough(t, pc, &backend, 300000)
				waitForMetric(t, setup.srv, "moonbridge_proxy_logins_total", map[string]string{"outcome": "ok"}, 1)
			})
		}
	}
}

// TestOfflineLoginWithForwarding: auth offline forwards the name's offline profile.
func TestOfflineLoginWithForwarding(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
	setup := startLoginProxy(t, false, &backend, "go", Minecraft)
	pc := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Notch", Protocol: 47})
	got := backendLogin(t, &backend)
	if got.Err != nil {
		t.Fatal(got.Err)
	}
	checkForwarded(t, auth.ForwardBungeeCord, got.Forwarded, auth.OfflineProfile("Notch"))
	readLoginSuccess(t, pc, false)
	echoThrough(t, pc, &backend, 10000)
}

// TestLoginRefusedEndToEnd: a player the session server does not know is told so, the session
// ends as login_refused, no backend is dialled, and another player's session is undisturbed.
func TestLoginRefusedEndToEnd(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
	setup := startLoginProxy(t, true, &backend, "go", Minecraft)
	good := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
	backendLogin(t, &backend)
	readLoginSuccess(t, good, false)

	bad := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Steve", Protocol: 767, Sessions: setup.sessions, SkipJoin: true})
	body, err := bad.ReadFrame()
	if id, fields, _ := mc.PacketID(body); err != nil || id != mc.LoginDisconnectID || !bytes.Contains(fields, []byte("Failed to verify username")) {
		t.Fatalf("refused player read %q %v, want the disconnect", body, err)
	}
	waitForMetric(t, setup.srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "login_refused"}, 1)
	waitForMetric(t, setup.srv, "moonbridge_proxy_logins_total", map[string]string{"outcome": "not_authenticated"}, 1)
	waitForLines(t, setup.lines, 1, `"answered":"login refused"`, `"close_reason":"login refused (not_authenticated)`)
	echoThrough(t, good, &backend, 5000)
	select {
	case l := <-backend.Got:
		t.Fatalf("a refused login reached the backend: %+v", l)
	default:
	}
}

// TestVelocityWrongSecret: a backend with another secret refuses the forwarding; the player
// reads the backend's disconnect through the cipher.
func TestVelocityWrongSecret(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardVelocity, VelocitySecret: []byte("other")}
	setup := startLoginProxy(t, true, &backend, "go", Minecraft)
	pc := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
	if got := backendLogin(t, &backend); got.Err == nil {
		t.Fatal("the backend took data signed with the wrong secret")
	}
	body, err := pc.ReadFrame()
	if id, fields, _ := mc.PacketID(body); err != nil || id != mc.LoginDisconnectID || !bytes.Contains(fields, []byte("signature")) {
		t.Fatalf("player read %q %v, want the backend's disconnect", body, err)
	}
	// The session's end line (the player still holds its half open: end it) says who the proxy
	// verified.
	setup.srv.Close()
	waitForLines(t, setup.lines, 1, `"player":"Alex"`, `"player_uuid":"`+authfake.Profile("Alex").ID.String()+`"`, `"online":true`, `"backend":"`)
}

// TestVelocityBackendNotAsking: a backend that is not in Velocity mode logs the player in
// without asking; the proxy refuses to go on, and says so.
func TestVelocityBackendNotAsking(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardNone}
	setup := startLoginProxy(t, true, &backend, "go", Minecraft)
	setup.srv.settings().router.routes[0].Login.Forwarding = auth.ForwardVelocity
	pc := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
	backendLogin(t, &backend)
	body, err := pc.ReadFrame()
	if id, fields, _ := mc.PacketID(body); err != nil || id != mc.LoginDisconnectID || !bytes.Contains(fields, []byte("forwarding")) {
		t.Fatalf("player read %q %v, want the proxy's disconnect", body, err)
	}
	waitForMetric(t, setup.srv, "moonbridge_proxy_logins_total", map[string]string{"outcome": "forwarding_failed"}, 1)
}

// backendLogin is the next login the backend saw; a test fails instead of waiting for good.
func backendLogin(t *testing.T, backend *authtest.Backend) authtest.BackendLogin {
	t.Helper()
	select {
	case l := <-backend.Got:
		return l
	case <-time.After(20 * time.Second):
		t.Fatal("no login reached the backend")
	}
	return authtest.BackendLogin{}
}

// loginThrough dials the proxy over transport and logs player in.
func loginThrough(t *testing.T, setup loginSetup, transport Protocol, player authtest.Player) *authtest.Conn {
	t.Helper()
	conn := dialClient(t, transport, setup.addr)
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	pc, err := player.Login(conn, "play.example.net")
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	return pc
}

func checkForwarded(t *testing.T, fwd auth.Forwarding, got authtest.Forwarded, want auth.Profile) {
	t.Helper()
	switch fwd {
	case auth.ForwardNone:
		if got.Name != want.Name || got.Host != "play.example.net" {
			t.Fatalf("backend saw %+v", got)
		}
		return
	case auth.ForwardVelocity:
		if got.Name != want.Name {
			t.Fatalf("velocity forwarded name %q, want %q", got.Name, want.Name)
		}
	}
	if got.Address != "127.0.0.1" || got.UUID != want.ID.Hex() || len(got.Properties) != len(want.Properties) {
		t.Fatalf("backend saw %+v, want address 127.0.0.1 and profile %+v", got, want)
	}
	for i := range want.Properties {
		if got.Properties[i] != want.Properties[i] {
			t.Fatalf("property %d: %+v, want %+v", i, got.Properties[i], want.Properties[i])
		}
	}
}

// readLoginSuccess reads the backend's Login Success (after Set Compression, when on).
func readLoginSuccess(t *testing.T, pc *authtest.Conn, compression bool) {
	t.Helper()
	want := []byte{mc.LoginSuccessID}
	if compression {
		body, err := pc.ReadFrame()
		if err != nil || body[0] != mc.SetCompressionID {
			t.Fatalf("want Set Compression, read % x %v", body, err)
		}
		want = []byte{0, mc.LoginSuccessID}
	}
	body, err := pc.ReadFrame()
	if err != nil || !bytes.HasPrefix(body, want) {
		t.Fatalf("want Login Success, read % x %v", body, err)
	}
}

// echoThrough sends size random bytes through the cipher to the echoing backend and checks
// they come back the same.
func echoThrough(t *testing.T, pc *authtest.Conn, backend *authtest.Backend, size int) {
	t.Helper()
	before := len(backend.Received.Bytes())
	payload := make([]byte, size)
	rand.Read(payload)
	errs := make(chan error, 1)
	go func() {
		for off := 0; off < size; {
			n := min(size-off, 1+int(payload[off])*200) // uneven writes
			if _, err := pc.Write(payload[off : off+n]); err != nil {
				errs <- err
				return
			}
			off += n
		}
		errs <- nil
	}()
	got := make([]byte, size)
	if _, err := io.ReadFull(pc.R, got); err != nil {
		t.Fatalf("reading the echo: %v", err)
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("the echo differs from what was sent")
	}
	if !bytes.Equal(backend.Received.Bytes()[before:], payload) {
		t.Fatal("the backend did not get the plaintext")
	}
}

// TestOnlineLoginEveryShapeEndToEnd: a player of each distinct login shape of the version table
// (and a 1.19/1.19.1 player with a chat key, whose verify token is signed) logs in through the
// proxy to a BungeeCord backend and exchanges bytes.
func TestOnlineLoginEveryShapeEndToEnd(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
	setup := startLoginProxy(t, true, &backend, "go", Minecraft)
	for _, p := range []authtest.Player{
		{Protocol: 4}, {Protocol: 5}, {Protocol: 47}, {Protocol: 393}, {Protocol: 735}, {Protocol: 759}, {Protocol: 759, ChatKey: true},
		{Protocol: 760, ChatKey: true}, {Protocol: 761}, {Protocol: 764}, {Protocol: 766}, {Protocol: 768}, {Protocol: 774},
	} {
		p.Name, p.Sessions = "Alex", setup.sessions
		pc := loginThrough(t, setup, Minecraft, p)
		got := backendLogin(t, &backend)
		if got.Err != nil || got.Start.Name != "Alex" {
			t.Fatalf("protocol %d: backend saw %+v", p.Protocol, got)
		}
		checkForwarded(t, auth.ForwardBungeeCord, got.Forwarded, authfake.Profile("Alex"))
		readLoginSuccess(t, pc, false)
		echoThrough(t, pc, &backend, 1000)
	}
}

// TestLoginRefusedCloseCode: a WebSocket player whose login the proxy refused (here: a version
// the table does not know) gets the disconnect and then close code 1008, as for a bad handshake,
// not 1011 (which says the server failed).
func TestLoginRefusedCloseCode(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardNone}
	setup := startLoginProxy(t, true, &backend, "go", WS)
	conn := gorillaDial(t, "ws", setup.addr)
	hs := mc.Handshake{Protocol: 775, Host: "play.example.net", Port: 25565, NextState: mc.NextLogin}
	shape, _, _ := mc.LoginShapeOf(767)
	conn.WriteMessage(websocket.BinaryMessage, mc.AppendLoginStart(hs.AppendFrame(nil, hs.Host), shape, mc.LoginStart{Name: "Alex", HasUUID: true}))
	checkCloseCode(t, conn, websocket.ClosePolicyViolation, "login refused")
	waitForMetric(t, setup.srv, "moonbridge_proxy_logins_total", map[string]string{"outcome": "unknown_version"}, 1)
}

// TestOnlineLoginPipelined: bytes a player sends right behind its Encryption Response, in the same
// write, are already in the proxy's reader when the login ends: they reach the backend decrypted,
// ahead of everything after them.
func TestOnlineLoginPipelined(t *testing.T) {
	for _, transport := range []Protocol{Minecraft, WS} {
		backend := authtest.Backend{Forwarding: auth.ForwardNone}
		setup := startLoginProxy(t, true, &backend, "go", transport)
		early := make([]byte, 3000)
		rand.Read(early)
		pc := loginThrough(t, setup, transport, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions, Pipelined: early})
		if got := backendLogin(t, &backend); got.Err != nil {
			t.Fatal(got.Err)
		}
		readLoginSuccess(t, pc, false)
		echoed := make([]byte, len(early))
		if _, err := io.ReadFull(pc.R, echoed); err != nil || !bytes.Equal(echoed, early) {
			t.Fatalf("%s: the early bytes came back %v, equal %v", transport, err, bytes.Equal(echoed, early))
		}
		if !bytes.HasPrefix(backend.Received.Bytes(), early) {
			t.Fatalf("%s: the backend did not get the early bytes in plaintext first", transport)
		}
		echoThrough(t, pc, &backend, 5000)
	}
}
