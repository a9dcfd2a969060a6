package relay

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// Issue 13, defect 10: every WebSocket session used to end with close code 1000. The code says
// why (RFC 6455 section 7.4.1), read here by an independent client (gorilla/websocket).
// Each TLS provider: wss over BoringSSL runs on the event loops, over crypto/tls on goroutines.
func TestWebSocketCloseCodes(t *testing.T) {
	for _, provider := range []string{"go", "boringssl"} {
		t.Run("wss_"+provider, func(t *testing.T) { testWebSocketCloseCodes(t, provider) })
	}
}

func testWebSocketCloseCodes(t *testing.T, provider string) {
	resetter := startResettingBackend(t)
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Hosts: []string{"reset.example"}, Backends: []pool.Backend{{Addr: resetter}}},
			{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr()}}},
		}
		c.TLS = tlsServer(t, provider)
	}, WS, WSS)
	for _, scheme := range []string{"ws", "wss"} {
		reset := gorillaDial(t, scheme, addr)
		reset.WriteMessage(websocket.BinaryMessage, handshakeFrame("reset.example", mc.NextLogin))
		checkCloseCode(t, reset, websocket.CloseInternalServerErr, scheme+" backend reset")

		bad := gorillaDial(t, scheme, addr)
		bad.WriteMessage(websocket.BinaryMessage, []byte{0x02, 0x07, 0x00}) // packet id 7: no handshake
		checkCloseCode(t, bad, websocket.ClosePolicyViolation, scheme+" bad Minecraft handshake")
	}
	live := gorillaDial(t, "wss", addr)
	live.WriteMessage(websocket.BinaryMessage, handshakeFrame("play.example", mc.NextLogin))
	// Relaying: a Close while the session still dials would end it as backend_unreachable.
	testutil.WaitFor(t, "the backend to see play.example", func() bool { return backend.sawHost("play.example") })
	go srv.Close()
	checkCloseCode(t, live, websocket.CloseGoingAway, "shutdown")
}

func gorillaDial(t *testing.T, scheme, addr string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.DialContext(context.Background(), scheme+"://"+addr+"/mc", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func checkCloseCode(t *testing.T, conn *websocket.Conn, want int, what string) {
	t.Helper()
	if ce, err := testutil.ReadUntilClose(conn, 10*time.Second); ce == nil || ce.Code != want {
		t.Errorf("%s: close %v (%v), want close code %d", what, ce, err, want)
	}
}

// startResettingBackend accepts connections, reads the handshake and resets each one.
func startResettingBackend(t *testing.T) string {
	t.Helper()
	return testutil.Serve(t, func(c net.Conn) {
		mc.ReadHello(bufio.NewReader(c), 0)
		c.(*net.TCPConn).SetLinger(0)
		c.Close() // RST
	}).Addr().String()
}

// Issue 13, defect 10: a backend that closes its side was logged as "closed normally", as if
// the player had left; the line says which side closed, and a reset is an error.
func TestCleanEndSaysWhichSideClosed(t *testing.T) {
	var lines *logLines
	closer, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	go func() {
		c, err := closer.Accept()
		if err != nil {
			return
		}
		mc.ReadHello(bufio.NewReader(c), 0)
		c.Close() // a FIN: the server is gone, or it has nothing more to say
	}()
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Hosts: []string{"closing.example"}, Backends: []pool.Backend{{Addr: closer.Addr().String()}}},
			{Hosts: []string{"reset.example"}, Backends: []pool.Backend{{Addr: startResettingBackend(t)}}},
			{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr()}}},
		}
		lines = captureLog(t, c)
	}, Minecraft)
	for _, host := range []string{"closing.example", "reset.example"} {
		conn := dialClient(t, Minecraft, addr)
		conn.Write(handshakeFrame(host, mc.NextLogin))
		closedWithin(conn, 10*time.Second)
		conn.Close()
	}
	leaving := dialClient(t, Minecraft, addr)
	exchange(t, leaving, "play.example", 10)
	leaving.Close()
	testutil.WaitFor(t, "3 session end lines", func() bool { return lines.count("session ended") == 3 })
	for _, want := range [][]string{
		{`"host":"closing.example"`, `"close_reason":"backend closed the connection"`},
		{`"host":"reset.example"`, `"close_reason":"backend: `},
		{`"host":"play.example"`, `"close_reason":"client closed the connection"`},
	} {
		if lines.count(want...) != 1 {
			t.Errorf("no line with %q:\n%s", want, lines.String())
		}
	}
}
