package bridge

import (
	"bytes"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// upgradeSeen is what the recording server saw of one upgrade request.
type upgradeSeen struct {
	host, sni, path, auth, extra string
	bridge                       string // ws.BridgeHeader
}

// recordingServer is an independent WebSocket server (gorilla/websocket) over TLS: it records
// each upgrade request and hands every binary message it receives to the test, whole, so
// the test sees message boundaries.
type recordingServer struct {
	addr     string
	upgrades chan upgradeSeen
	messages chan []byte
}

func startRecordingServer(t *testing.T, cert gossl.PEMPair) *recordingServer {
	t.Helper()
	pair, err := tls.X509KeyPair(cert.CertPEM, cert.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	rs := &recordingServer{addr: ln.Addr().String(), upgrades: make(chan upgradeSeen, 8), messages: make(chan []byte, 64)}
	srv := &http.Server{Handler: http.HandlerFunc(rs.serve)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); wg.Wait() })
	return rs
}

func (rs *recordingServer) serve(w http.ResponseWriter, r *http.Request) {
	rs.upgrades <- upgradeSeen{host: r.Host, sni: r.TLS.ServerName, path: r.URL.RequestURI(),
		auth: r.Header.Get("Authorization"), extra: r.Header.Get("X-Player-Region"), bridge: r.Header.Get(ws.BridgeHeader)}
	c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	for {
		kind, msg, err := c.ReadMessage()
		if err != nil || kind != websocket.BinaryMessage {
			return
		}
		rs.messages <- msg
	}
}

// receive takes the next value from ch; the bound only turns a hang into a failure.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("the server saw no %s", what)
		var zero T
		return zero
	}
}

// TestConnectElsewhereKeepsTheURLsName: the bridge dials --connect's address while TLS and
// Host name the URL's host (or --sni / --host), sends the extra headers and ws.BridgeHeader
// with the address the game reached it on, and a lone packet reaches the server as its own
// message without any further write from the game.
func TestConnectElsewhereKeepsTheURLsName(t *testing.T) {
	cert := selfSigned(t, time.Hour, "play.example.test", "edge.example.test")
	for _, tc := range []struct {
		name, sni, host       string
		wantSNI, wantHostName string
	}{
		{"names from the URL", "", "", "play.example.test", "play.example.test"},
		{"--sni and --host", "edge.example.test", "cdn.example.test", "edge.example.test", "cdn.example.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := startRecordingServer(t, cert)
			_, port, _ := net.SplitHostPort(rs.addr)
			header := http.Header{"Authorization": {"Bearer s3cret"}, "X-Player-Region": {"eu"}}
			b := startBridge(t, ws.DialConfig{
				URL: "wss://play.example.test:" + port + "/mc?v=1", Address: rs.addr,
				ServerName: tc.sni, Host: tc.host, Header: header, TLSConfig: trusting(t, cert),
			}, nil)
			game := dialGame(t, b)
			hello := handshake(mc.NextLogin)
			if _, err := game.Write(hello); err != nil {
				t.Fatal(err)
			}
			seen := receive(t, rs.upgrades, "upgrade request")
			want := upgradeSeen{host: tc.wantHostName, sni: tc.wantSNI, path: "/mc?v=1", auth: "Bearer s3cret", extra: "eu",
				bridge: game.RemoteAddr().String()}
			if tc.host == "" {
				want.host += ":" + port
			}
			if seen != want {
				t.Errorf("upgrade request %+v, want %+v", seen, want)
			}
			if got := receive(t, rs.messages, "message"); !bytes.Equal(got, hello) {
				t.Errorf("first message % x, want the handshake", got)
			}
			lone := mc.AppendFrame(nil, 0x00, mc.AppendString(nil, "Steve"))
			if _, err := game.Write(lone); err != nil {
				t.Fatal(err)
			}
			if got := receive(t, rs.messages, "message"); !bytes.Equal(got, lone) {
				t.Errorf("second message % x, want the lone Login Start", got)
			}
		})
	}
}
