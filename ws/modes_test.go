package ws

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// modesSeen records what the server's Conns agreed on.
type modesSeen struct {
	mu          sync.Mutex
	early, raw  bool
	subprotocol string
}

func (m *modesSeen) echo(c *Conn, r *http.Request) {
	m.mu.Lock()
	m.early, m.raw, m.subprotocol = c.EarlyData(), c.RawStream(), c.Subprotocol()
	m.mu.Unlock()
	echo(c, r)
}

func (m *modesSeen) get() (early, raw bool, subprotocol string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.early, m.raw, m.subprotocol
}

// dialModes dials url with the modes asked for.
func dialModes(t *testing.T, url string, layer tlsLayer, early []byte, raw bool) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, DialConfig{URL: url + "/mc", TLSConfig: layer.client, Conn: noKeepalive(), EarlyData: early, RawStream: raw})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestModes: each pair of client offer and server setting agrees on what both allow, and the
// stream echoes byte-exact: the early data first (from the request when taken, else sent in
// frames by the client), then what followed.
func TestModes(t *testing.T) {
	early := []byte("\x10\x00\xff\x05\x09localhost\x63\xdd\x02\x07\x00\x05Steve")
	for _, tc := range []struct {
		name                 string
		offerEarly, offerRaw bool
		limit                int
		serverRaw            bool
		wantEarly, wantRaw   bool
	}{
		{"early data, both ends", true, false, 2048, false, true, false},
		{"early data, server off", true, false, 0, true, false, false},
		{"raw, both ends", false, true, 0, true, false, true},
		{"raw, server off", false, true, 2048, false, false, false},
		{"both, both ends", true, true, 2048, true, true, true},
		{"both offered, server early only", true, true, 2048, false, true, false},
		{"both offered, server raw only", true, true, 0, true, false, true},
		{"nothing offered", false, false, 2048, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, layer := range tlsLayers(t) {
				layer.run(t, func(t *testing.T, layer tlsLayer) {
					testutil.CheckGoroutines(t)
					var seen modesSeen
					url := startServer(t, ServerConfig{Conn: noKeepalive(), EarlyData: tc.limit, RawStream: tc.serverRaw}, layer.orNil(), seen.echo)
					var offer []byte
					if tc.offerEarly {
						offer = early
					}
					c := dialModes(t, url, layer, offer, tc.offerRaw)
					if c.EarlyData() != tc.wantEarly || c.RawStream() != tc.wantRaw {
						t.Fatalf("client: early data %v, raw %v; want %v, %v", c.EarlyData(), c.RawStream(), tc.wantEarly, tc.wantRaw)
					}
					sent := []byte{}
					if !c.EarlyData() {
						sent = append(sent, early...)
					}
					payload := randomStream(3, 200<<10)
					sent = append(sent, payload...)
					go c.Write(sent)
					got := make([]byte, len(early)+len(payload))
					c.SetReadDeadline(time.Now().Add(10 * time.Second))
					if _, err := io.ReadFull(c, got); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, append(append([]byte{}, early...), payload...)) {
						t.Fatal("the echo is not the early data and then the payload")
					}
					if e, r, _ := seen.get(); e != tc.wantEarly || r != tc.wantRaw {
						t.Fatalf("server: early data %v, raw %v; want %v, %v", e, r, tc.wantEarly, tc.wantRaw)
					}
				})
			}
		})
	}
}

// TestRawStreamHasNoFrames: on a raw stream the socket carries exactly the bytes written, both
// ways, with no header and no mask.
func TestRawStreamHasNoFrames(t *testing.T) {
	for _, layer := range tlsLayers(t) {
		layer.run(t, func(t *testing.T, layer tlsLayer) {
			testutil.CheckGoroutines(t)
			up, down := []byte("player to server"), []byte("server to player")
			serverGot := make(chan []byte, 1)
			url := startServer(t, ServerConfig{Conn: noKeepalive(), RawStream: true}, layer.orNil(), func(c *Conn, _ *http.Request) {
				b := make([]byte, len(up))
				_, err := io.ReadFull(c.nc, b) // under the Conn: the wire itself
				serverGot <- b
				if err == nil {
					c.Write(down)
				}
			})
			c := dialModes(t, url, layer, nil, true)
			if _, err := c.Write(up); err != nil {
				t.Fatal(err)
			}
			if got := <-serverGot; !bytes.Equal(got, up) {
				t.Fatalf("the server's socket read %q, want %q", got, up)
			}
			b := make([]byte, len(down))
			c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(c.nc, b); err != nil || !bytes.Equal(b, down) {
				t.Fatalf("the client's socket read %q, %v; want %q", b, err, down)
			}
		})
	}
}

// TestRawSendCloseHalfCloses: a raw stream's SendClose ends the stream to the server (a FIN, a
// close_notify), which still answers; the client reads that, then the server's end as io.EOF.
func TestRawSendCloseHalfCloses(t *testing.T) {
	for _, layer := range tlsLayers(t) {
		layer.run(t, func(t *testing.T, layer tlsLayer) {
			testutil.CheckGoroutines(t)
			url := startServer(t, ServerConfig{Conn: noKeepalive(), RawStream: true}, layer.orNil(), func(c *Conn, _ *http.Request) {
				got, err := io.ReadAll(c)
				if err == nil {
					c.Write(append([]byte("read: "), got...))
				}
			})
			c := dialModes(t, url, layer, nil, true)
			c.Write([]byte("bye"))
			if err := c.SendClose(CloseNormal, ""); err != nil {
				t.Fatal(err)
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			got, err := io.ReadAll(c)
			if err != nil || string(got) != "read: bye" {
				t.Fatalf("after SendClose: %q, %v; want the answer, then io.EOF", got, err)
			}
			if _, err := c.Write([]byte("more")); !errors.Is(err, ErrClosed) {
				t.Errorf("a write after SendClose: %v, want ErrClosed", err)
			}
		})
	}
}

// TestThirdPartyClientUnaffected: gorilla's client offering its own subprotocol (or ours, as
// the relay's token clients do) meets a server with both modes on as it would one without.
func TestThirdPartyClientUnaffected(t *testing.T) {
	for _, layer := range tlsLayers(t) {
		layer.run(t, func(t *testing.T, layer tlsLayer) {
			testutil.CheckGoroutines(t)
			var seen modesSeen
			var heard atomic.Int32
			cfg := ServerConfig{Conn: noKeepalive(), EarlyData: 2048, RawStream: true, Subprotocols: []string{"moonbridge"},
				OnEarlyData: func(*http.Request, EarlyDataResult, error) { heard.Add(1) }}
			url := startServer(t, cfg, layer.orNil(), seen.echo)
			for _, tc := range []struct{ offer, want string }{{"chat", ""}, {"chat, moonbridge", "moonbridge"}, {"", ""}} {
				d := websocket.Dialer{TLSClientConfig: layer.client}
				if tc.offer != "" {
					d.Subprotocols = strings.Split(tc.offer, ", ")
				}
				gc, _, err := d.Dial(url+"/mc", nil)
				if err != nil {
					t.Fatal(err)
				}
				if gc.Subprotocol() != tc.want {
					t.Errorf("offer %q: chose %q, want %q", tc.offer, gc.Subprotocol(), tc.want)
				}
				if err := gc.WriteMessage(websocket.BinaryMessage, []byte("ping")); err != nil {
					t.Fatal(err)
				}
				gc.SetReadDeadline(time.Now().Add(10 * time.Second))
				if typ, msg, err := gc.ReadMessage(); err != nil || typ != websocket.BinaryMessage || string(msg) != "ping" {
					t.Fatalf("offer %q: echo %d %q, %v", tc.offer, typ, msg, err)
				}
				if early, raw, _ := seen.get(); early || raw {
					t.Errorf("offer %q: the server took early data %v, raw %v", tc.offer, early, raw)
				}
				gc.Close()
			}
			if n := heard.Load(); n != 0 {
				t.Errorf("OnEarlyData heard %d offers; no early data were offered", n)
			}
		})
	}
}

// TestEarlyDataRefused: a malformed offer is answered 400 and an oversized one 431, with the
// reason as the body, before any upgrade; OnEarlyData hears each first. Dial reports the status.
func TestEarlyDataRefused(t *testing.T) {
	testutil.CheckGoroutines(t)
	var mu sync.Mutex
	var heard []EarlyDataResult
	var handled atomic.Bool
	cfg := ServerConfig{Conn: noKeepalive(), EarlyData: 16, OnEarlyData: func(_ *http.Request, r EarlyDataResult, err error) {
		mu.Lock()
		defer mu.Unlock()
		if (r == EarlyDataUsed || r == EarlyDataOff) != (err == nil) {
			panic("OnEarlyData: result and error disagree")
		}
		heard = append(heard, r)
	}}
	url := startServer(t, cfg, nil, func(c *Conn, r *http.Request) { handled.Store(true) })
	addr := strings.TrimPrefix(url, "ws://")
	for _, tc := range []struct {
		offer  string
		status int
	}{
		{EarlyDataProtocol + ", " + EarlyDataPrefix + "not+base64", http.StatusBadRequest},
		{EarlyDataProtocol + ", " + edValue(make([]byte, 17)), http.StatusRequestHeaderFieldsTooLarge},
	} {
		resp := rawRequest(t, addr, upgradeReq("/mc", "Sec-WebSocket-Protocol: "+tc.offer+"\r\n"))
		if resp.StatusCode != tc.status || !resp.Close {
			t.Errorf("offer %.40q: %s, close %v; want %d and Connection: close", tc.offer, resp.Status, resp.Close, tc.status)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Dial(ctx, DialConfig{URL: url + "/mc", EarlyData: make([]byte, 17)})
	var he *HandshakeError
	if !errors.As(err, &he) || he.StatusCode != http.StatusRequestHeaderFieldsTooLarge || !strings.Contains(he.Text, "over this endpoint's limit of 16") {
		t.Errorf("Dial with too much early data: %v; want a 431 that says the limit", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []EarlyDataResult{EarlyDataMalformed, EarlyDataTooLarge, EarlyDataTooLarge}
	if strings.Join(resultStrings(heard), ",") != strings.Join(resultStrings(want), ",") || handled.Load() {
		t.Errorf("heard %v, handler ran %v; want %v and no upgrade", heard, handled.Load(), want)
	}
}

func resultStrings(rs []EarlyDataResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r))
	}
	return out
}

// TestEarlyDataReadInPieces: early data come out across Reads as small as the caller's buffer,
// and Detach waits until none are left; the socket's bytes follow them.
func TestEarlyDataReadInPieces(t *testing.T) {
	sock := &scriptConn{}
	sock.push(frame(true, OpBinary, []byte("next"), 0x01020304))
	c := newConn(sock, RoleServer, noKeepalive(), EarlyDataProtocol)
	c.early = []byte("early bytes")
	buf := make([]byte, 5)
	var got []byte
	for len(got) < len("early bytes") {
		if _, _, err := c.Detach(); !errors.Is(err, ErrEarlyDataUnread) {
			t.Fatalf("Detach with early data unread: %v", err)
		}
		n, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	n, err := c.Read(buf)
	if string(got) != "early bytes" || err != nil || string(buf[:n]) != "next" {
		t.Fatalf("read %q, then %q, %v", got, buf[:n], err)
	}
	if _, _, err := c.Detach(); err != nil {
		t.Fatalf("Detach once the early data are read: %v", err)
	}
}
