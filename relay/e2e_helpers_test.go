package relay

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/gossl/tlstest"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/ws"
)

// testBackend is a Minecraft server stand-in: it reads an optional PROXY header and the
// handshake, records them, then echoes every byte until the client half-closes.
type testBackend struct {
	ln        net.Listener
	wantProxy bool
	mu        sync.Mutex
	accepted  []net.Conn // every connection accepted, in order
	proxies   []clientaddr.Header
	hellos    []mc.Handshake
	wg        sync.WaitGroup
	pause     chan struct{} // when non-nil, a session stops reading until it is closed
}

func startBackend(t *testing.T, wantProxy bool) *testBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &testBackend{ln: ln, wantProxy: wantProxy}
	b.wg.Add(1)
	go b.accept()
	t.Cleanup(func() { ln.Close(); b.wg.Wait() })
	return b
}

func (b *testBackend) addr() string { return b.ln.Addr().String() }

func (b *testBackend) accept() {
	defer b.wg.Done()
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.accepted = append(b.accepted, conn)
		b.mu.Unlock()
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.serve(conn) }()
	}
}

func (b *testBackend) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	if b.wantProxy {
		h, err := clientaddr.ReadHeader(r, 0)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.proxies = append(b.proxies, h)
		b.mu.Unlock()
	}
	hello, err := mc.ReadHello(r, 0)
	if err != nil || hello.Legacy != nil {
		return
	}
	b.mu.Lock()
	b.hellos = append(b.hellos, hello.Handshake)
	pause := b.pause
	b.mu.Unlock()
	if pause != nil {
		<-pause
	}
	io.Copy(conn, r)
	conn.(*net.TCPConn).CloseWrite()
}

// reset kills every connection the backend accepted with a TCP reset, as a crashing server
// does; the listener stays open.
func (b *testBackend) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.accepted {
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}
}

// acceptedCount is how many connections reached the backend, sentinel excluded. It dials a
// sentinel and waits until the backend accepted it: the listen queue is first in, first out, so
// every connection made before the call has been accepted (and counted) by then.
func (b *testBackend) acceptedCount(t *testing.T) int {
	t.Helper()
	sentinel, err := net.DialTimeout("tcp", b.addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sentinel.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		for i, c := range b.accepted {
			if c.RemoteAddr().String() == sentinel.LocalAddr().String() {
				b.mu.Unlock()
				return i
			}
		}
		b.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the backend never accepted the sentinel connection")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sawHost says whether a handshake for host reached the backend.
func (b *testBackend) sawHost(host string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range b.hellos {
		if h.Host == host {
			return true
		}
	}
	return false
}

func (b *testBackend) lastHello(t *testing.T) mc.Handshake {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.hellos) == 0 {
		t.Fatal("the backend saw no handshake")
	}
	return b.hellos[len(b.hellos)-1]
}

// tlsServer makes a gossl server with a throwaway certificate from the named provider; the
// test skips with the reason when this build does not have that provider.
func tlsServer(t *testing.T, provider string) *gossl.Server {
	t.Helper()
	srv, _, err := tlstest.TLSServer(t, provider)
	if err != nil {
		t.Skip(err)
	}
	return srv
}

// startProxy runs a Server on 127.0.0.1:0 with the given protocols in front of backends.
func startProxy(t *testing.T, mutate func(*Config), protocols ...Protocol) (*Server, string) {
	t.Helper()
	cfg := Config{
		Listeners:      []Listener{{Addr: "127.0.0.1:0", Protocols: protocols}},
		TLS:            tlsServer(t, "go"),
		WebSocket:      ws.ServerConfig{Path: "/mc"},
		Fallback:       DefaultFallback(),
		DataPathConfig: DataPathConfig{DataPath: testDataPath},
		Logger:         zerolog.New(zerolog.NewTestWriter(t)),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(); checkLoopsEmpty(t, srv) })
	return srv, srv.Addrs()[0].String()
}

// checkLoopsEmpty fails when a closed server's event loops still count a session or a held
// buffer: every session's end must give back what the loop had for it.
func checkLoopsEmpty(t *testing.T, srv *Server) {
	t.Helper()
	if (testDataPath == DataPathLoop) != (srv.engine != nil) {
		t.Errorf("data path %s, event loops running: %v", testDataPath, srv.engine != nil)
	}
	if srv.engine == nil {
		return
	}
	if st := srv.engine.Stats(); st.Sessions != 0 || st.Held != 0 {
		t.Errorf("after Close the loops hold %d sessions, %d buffers", st.Sessions, st.Held)
	}
}

func routeTo(addrs ...string) []Route {
	var backends []pool.Backend
	for _, a := range addrs {
		backends = append(backends, pool.Backend{Addr: a})
	}
	return []Route{{Hosts: []string{"*"}, Backends: backends}}
}

// handshakeFrame builds a login (or status) handshake for host.
func handshakeFrame(host string, next mc.NextState) []byte {
	return mc.Handshake{Protocol: 767, Host: host, Port: 25565, NextState: next}.AppendFrame(nil, host)
}

// dialClient opens a client stream over transport "minecraft", "ws" or "wss".
func dialClient(t *testing.T, transport Protocol, addr string) net.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if transport == Minecraft {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}
	conn, err := ws.Dial(ctx, ws.DialConfig{
		URL:       string(transport) + "://" + addr + "/mc",
		TLSConfig: &tls.Config{InsecureSkipVerify: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func addrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// firstRead waits up to 10 s for conn's first byte and returns the read's error: io.EOF when
// the proxy closed the connection cleanly.
func firstRead(conn net.Conn) error {
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := conn.Read(make([]byte, 1))
	return err
}

// startLimitedProxy runs a proxy for protocol in front of a fresh backend, allowing one
// connection per client address.
func startLimitedProxy(t *testing.T, protocol Protocol) (*Server, string) {
	t.Helper()
	backend := startBackend(t, false)
	return startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Limits.MaxConnectionsPerIP = 1
	}, protocol)
}
