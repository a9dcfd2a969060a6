package relay

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// exchange sends the handshake (unless host is "": a session already under way) and size random bytes and checks that the echo comes back
// byte-exact, writing and reading concurrently so neither side's buffers fill up.
func exchange(t *testing.T, conn net.Conn, host string, size int) {
	t.Helper()
	if size == 0 {
		t.Fatal("an exchange of no bytes checks nothing")
	}
	payload := make([]byte, size)
	rand.Read(payload)
	errs := make(chan error, 1)
	go func() {
		if host != "" {
			if _, err := conn.Write(handshakeFrame(host, mc.NextLogin)); err != nil {
				errs <- err
				return
			}
		}
		for off := 0; off < len(payload); {
			n := min(len(payload)-off, 1+int(payload[off])*200) // uneven writes
			if _, err := conn.Write(payload[off : off+n]); err != nil {
				errs <- err
				return
			}
			off += n
		}
		errs <- nil
	}()
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	got := make([]byte, size)
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatalf("reading the echo: %v", err)
	}
	if err := <-errs; err != nil {
		t.Fatalf("writing: %v", err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("echo differs from what was sent")
	}
}

func TestEndToEndEachProtocol(t *testing.T) {
	const size = 8 << 20
	all := []Protocol{Minecraft, WS, WSS}
	for _, tc := range []struct {
		name        string
		listen      []Protocol
		transport   Protocol
		tlsProvider string
	}{
		{"minecraft", []Protocol{Minecraft}, Minecraft, "go"},
		{"ws", []Protocol{WS}, WS, "go"},
		{"wss go", []Protocol{WSS}, WSS, "go"},
		{"wss boringssl", []Protocol{WSS}, WSS, "boringssl"},
		{"sniffed minecraft", all, Minecraft, "go"},
		{"sniffed ws", all, WS, "go"},
		{"sniffed wss go", all, WSS, "go"},
		{"sniffed wss boringssl", all, WSS, "boringssl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testutil.CheckGoroutines(t)
			backend := startBackend(t, false)
			_, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(backend.addr())
				c.TLS = tlsServer(t, tc.tlsProvider)
			}, tc.listen...)
			conn := dialClient(t, tc.transport, addr)
			defer conn.Close()
			exchange(t, conn, "play.example.net", size)
			if h := backend.lastHello(t); h.Host != "play.example.net" || h.NextState != mc.NextLogin {
				t.Errorf("backend got handshake %+v", h)
			}
		})
	}
}

func TestFailoverBeforeBytesOnly(t *testing.T) {
	deadAddr := testutil.ClosedPort(t) // the dial is refused
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(deadAddr, backend.addr()) }, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	exchange(t, conn, "a", 1<<16)

	// Once bytes reached a backend, its failure ends the session instead of trying the next.
	first := startBackend(t, false)
	second := startBackend(t, false)
	srv2, addr2 := startProxy(t, func(c *Config) { c.Routes = routeTo(first.addr(), second.addr()) }, Minecraft)
	conn2 := dialClient(t, Minecraft, addr2)
	defer conn2.Close()
	exchange(t, conn2, "b", 1024)
	first.ln.Close() // the first server is gone for good: a failover could only go to the second
	first.reset()
	if err := firstRead(conn2); err != io.EOF {
		t.Fatalf("after its backend died mid-session the client got %v, want EOF (session closed)", err)
	}
	waitForMetric(t, srv2, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "backend_error"}, 1)
	if n := second.acceptedCount(t); n != 0 {
		t.Errorf("the second backend got %d connection(s) after bytes had reached the first", n)
	}
}

func TestRoutingByHostAndPath(t *testing.T) {
	exact, wild, byPath, fallback := startBackend(t, false), startBackend(t, false), startBackend(t, false), startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: fallback.addr()}}},
			{Hosts: []string{"play.example.net"}, Backends: []pool.Backend{{Addr: exact.addr()}}, RewriteHost: "internal.lan"},
			{Hosts: []string{"*.example.net"}, Backends: []pool.Backend{{Addr: wild.addr()}}},
			{Hosts: []string{"creative.example.org"}, Paths: []string{"/mc"}, Backends: []pool.Backend{{Addr: byPath.addr()}}},
		}
	}, Minecraft, WS)
	for _, tc := range []struct {
		transport Protocol
		host      string
		want      *testBackend
	}{
		{Minecraft, "play.example.net\x00FML3\x00", exact},
		{Minecraft, "lobby.example.net", wild},
		{WS, "creative.example.org", byPath},
		{Minecraft, "creative.example.org", fallback}, // raw TCP has no path: "/mc" does not match ""
	} {
		conn := dialClient(t, tc.transport, addr)
		exchange(t, conn, tc.host, 100)
		conn.Close()
		tc.want.lastHello(t)
	}
	if h := exact.lastHello(t); h.Host != "internal.lan" || h.HostSuffix != "\x00FML3\x00" {
		t.Errorf("rewritten handshake %q suffix %q, want internal.lan with the FML3 marker kept", h.Host, h.HostSuffix)
	}
}

func TestProxyProtocolOut(t *testing.T) {
	for _, version := range []int{1, 2} {
		backend := startBackend(t, true)
		_, addr := startProxy(t, func(c *Config) {
			c.Routes = []Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr(), ProxyProtocol: version}}}}
		}, Minecraft)
		conn := dialClient(t, Minecraft, addr)
		exchange(t, conn, "h", 10)
		backend.mu.Lock()
		h := backend.proxies[0]
		backend.mu.Unlock()
		if h.Version != version || h.Source != addrPort(t, conn.LocalAddr().String()) || h.Destination.String() != addr {
			t.Errorf("v%d: header %+v, want source %s destination %s", version, h, conn.LocalAddr(), addr)
		}
		conn.Close()
	}
}

// v2Signature starts every PROXY v2 header (hex).
const v2Signature = "0d0a0d0a000d0a515549540a"

func TestProxyProtocolIn(t *testing.T) {
	backend := startBackend(t, true)
	header := clientaddr.Header{Version: 2, Command: clientaddr.Relayed,
		Source: addrPort(t, "203.0.113.7:4000"), Destination: addrPort(t, "198.51.100.1:25565")}
	headerBytes, _ := header.Append(nil)
	for _, tc := range []struct {
		name    string
		trusted []string
		policy  ProxyPolicy
		sendHdr bool
		wantSrc string // what the backend's PROXY header says; "" means the session must fail
		hdr     []byte // the header sent; nil: headerBytes
	}{
		{"trusted peer", []string{"127.0.0.0/8"}, ProxyRefuseUntrusted, true, "203.0.113.7:4000", nil},
		{"untrusted peer with header, refused", []string{"10.0.0.0/8"}, ProxyRefuseUntrusted, true, "", nil},
		{"untrusted peer with header, discarded", []string{"10.0.0.0/8"}, ProxyDiscardUntrusted, true, "127.0.0.1", nil},
		{"untrusted peer without header", []string{"10.0.0.0/8"}, ProxyRefuseUntrusted, false, "127.0.0.1", nil},
		// Headers without a client address: the connection's own addresses stand (the spec).
		{"trusted peer, v1 UNKNOWN", []string{"127.0.0.0/8"}, ProxyRefuseUntrusted, true, "127.0.0.1", []byte("PROXY UNKNOWN\r\n")},
		{"trusted peer, v2 LOCAL", []string{"127.0.0.0/8"}, ProxyRefuseUntrusted, true, "127.0.0.1", testutil.Unhex(v2Signature + "20 00 0000")},
		{"trusted peer, v2 UDP", []string{"127.0.0.0/8"}, ProxyRefuseUntrusted, true, "127.0.0.1",
			testutil.Unhex(v2Signature + "21 12 000c cb007107 c6336401 0fa0 63dd")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, addr := startProxy(t, func(c *Config) {
				c.Listeners[0].Proxy = tc.policy
				c.TrustedProxies, _ = clientaddr.ParseNets("trusted network", tc.trusted)
				c.Routes = []Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr(), ProxyProtocol: 2}}}}
			}, Minecraft)
			conn := dialClient(t, Minecraft, addr)
			defer conn.Close()
			if tc.wantSrc == "" {
				// One write, so the proxy has read every byte when it refuses: its close is a FIN.
				conn.Write(append(append([]byte(nil), headerBytes...), handshakeFrame("h", mc.NextLogin)...))
				if err := firstRead(conn); err != io.EOF {
					t.Fatalf("%v, want EOF (refused for its PROXY header)", err)
				}
				waitForMetric(t, srv, "moonbridge_connections_refused_total", map[string]string{"reason": refusedProxy}, 1)
				return
			}
			if tc.sendHdr && tc.hdr != nil {
				conn.Write(tc.hdr)
			} else if tc.sendHdr {
				conn.Write(headerBytes)
			}
			exchange(t, conn, "h", 10)
			backend.mu.Lock()
			got := backend.proxies[len(backend.proxies)-1].Source
			backend.mu.Unlock()
			if !strings.HasPrefix(got.String(), tc.wantSrc) {
				t.Errorf("backend sees client %s, want %s", got, tc.wantSrc)
			}
		})
	}
}

func TestStatusFallbackAndLoginDisconnect(t *testing.T) {
	deadAddr := testutil.ClosedPort(t)
	_, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(deadAddr) }, Minecraft, WS)
	for _, transport := range []Protocol{Minecraft, WS} {
		conn := dialClient(t, transport, addr)
		conn.Write(handshakeFrame("h", mc.NextStatus))
		conn.Write([]byte{0x01, 0x00})                         // status request
		conn.Write([]byte{0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8}) // ping
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(conn)
		body, err := readFrameFrom(r)
		if err != nil || !bytes.Contains(body, []byte("not reachable")) || !bytes.Contains(body, []byte(`"protocol":767`)) {
			t.Fatalf("%s status: %q %v", transport, body, err)
		}
		pong, err := readFrameFrom(r)
		if err != nil || !bytes.Equal(pong, []byte{0x01, 1, 2, 3, 4, 5, 6, 7, 8}) {
			t.Fatalf("%s pong: %x %v", transport, pong, err)
		}
		conn.Close()

		login := dialClient(t, transport, addr)
		login.Write(handshakeFrame("h", mc.NextLogin))
		login.SetReadDeadline(time.Now().Add(10 * time.Second))
		body, err = readFrameFrom(bufio.NewReader(login))
		if err != nil || body[0] != 0x00 || !bytes.Contains(body, []byte(`{"text":"The server is not reachable`)) {
			t.Fatalf("%s login disconnect: %q %v", transport, body, err)
		}
		login.Close()
	}
}

// readFrameFrom reads one Minecraft frame's body (packet id and fields), a byte at a time.
func readFrameFrom(r *bufio.Reader) ([]byte, error) {
	var b []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		b = append(b, c)
		body, _, err := mc.ReadFrame(b, mc.MaxFrameLen)
		if !errors.Is(err, mc.ErrNeedMore) {
			return body, err
		}
	}
}
