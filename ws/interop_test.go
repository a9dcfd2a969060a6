package ws

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

const interopBytes = 3 << 20

func randomStream(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// randomSplits cuts b into pieces of 1 byte to 150 KiB.
func randomSplits(seed uint64, b []byte) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 99))
	var out [][]byte
	for len(b) > 0 {
		n := min(len(b), 1+rng.IntN([]int{16, 1500, 150 << 10}[rng.IntN(3)]))
		out, b = append(out, b[:n]), b[n:]
	}
	return out
}

// startServer serves our Server with an echo handler on 127.0.0.1:0, over TLS when tlsLayer is
// set (crypto/tls or one of gossl's providers, see tlsLayers). It returns the ws:// or wss:// URL.
func startServer(t *testing.T, cfg ServerConfig, tlsLayer *tlsLayer, handle Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	scheme := "ws"
	if tlsLayer != nil {
		ln, scheme = tlsLayer.wrap(ln), "wss"
	}
	srv := NewServer(cfg, handle).HTTPServer()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); wg.Wait() })
	return scheme + "://" + ln.Addr().String()
}

// echo sends back what it reads, one WriteBatch per read.
func echo(c *Conn, _ *http.Request) {
	buf := make([]byte, MaxHeaderLen+MaxBatchSize)
	for {
		n, err := c.Read(buf[MaxHeaderLen:])
		if err != nil {
			return
		}
		if err := c.WriteBatch(buf[:MaxHeaderLen+n]); err != nil {
			return
		}
	}
}

// TestInteropGorillaClient: gorilla's client sends a multi-MiB stream in
// random messages (fragmented when large) with pings between them; our
// server echoes it as a byte stream in messages of at most 64 KiB.
func TestInteropGorillaClient(t *testing.T) {
	for _, layer := range tlsLayers(t) {
		layer.run(t, func(t *testing.T, layer tlsLayer) {
			testutil.CheckGoroutines(t)
			url := startServer(t, ServerConfig{Conn: noKeepalive()}, layer.orNil(), echo)
			d := websocket.Dialer{TLSClientConfig: layer.client}
			gc, _, err := d.Dial(url+"/mc", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer gc.Close()
			var pongs int
			gc.SetPongHandler(func(string) error { pongs++; return nil })

			want := randomStream(1, interopBytes)
			writeErr := make(chan error, 1)
			pings := 0
			go func() { writeErr <- gorillaSend(gc, want, &pings) }()
			got := make([]byte, 0, len(want))
			for len(got) < len(want) {
				typ, msg, err := gc.ReadMessage()
				if err != nil {
					t.Fatalf("after %d bytes: %v", len(got), err)
				}
				if typ != websocket.BinaryMessage || len(msg) > MaxBatchSize {
					t.Fatalf("message type %d of %d bytes; want binary, at most %d", typ, len(msg), MaxBatchSize)
				}
				got = append(got, msg...)
			}
			if err := <-writeErr; err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("echoed stream differs")
			}
			if pongs != pings {
				t.Fatalf("%d pongs for %d pings", pongs, pings)
			}
			closeMsg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "done")
			if err := gc.WriteMessage(websocket.CloseMessage, closeMsg); err != nil {
				t.Fatal(err)
			}
			_, _, err = gc.ReadMessage()
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Fatalf("after our close: %v, want the server's 1000 echo", err)
			}
		})
	}
}

func gorillaSend(gc *websocket.Conn, data []byte, pings *int) error {
	for i, part := range randomSplits(2, data) {
		if i%7 == 0 {
			if err := gc.WriteMessage(websocket.PingMessage, []byte("ping")); err != nil {
				return err
			}
			*pings++
		}
		if err := gc.WriteMessage(websocket.BinaryMessage, part); err != nil {
			return err
		}
	}
	return nil
}

// TestInteropGorillaServer: our client (Encoder writes, Conn reads)
// against gorilla's server, which re-splits what it echoes and pings; the
// dial address, SNI and Host header are set apart.
func TestInteropGorillaServer(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		t.Run(map[bool]string{false: "ws", true: "wss"}[useTLS], func(t *testing.T) {
			testutil.CheckGoroutines(t)
			srvDone := make(chan error, 1)
			h := gorillaEchoServer(t, srvDone)
			var ts *httptest.Server
			var clientTLS *tls.Config
			scheme := "ws"
			if useTLS {
				ts = httptest.NewTLSServer(h)
				pool := x509.NewCertPool()
				pool.AddCert(ts.Certificate())
				clientTLS, scheme = &tls.Config{RootCAs: pool}, "wss"
			} else {
				ts = httptest.NewServer(h)
			}
			defer ts.Close()
			c, err := Dial(context.Background(), DialConfig{
				URL:         scheme + "://play.example.net/mc?x=1",
				Address:     ts.Listener.Addr().String(),
				ServerName:  "example.com",
				Header:      http.Header{"X-Token": {"secret"}},
				Subprotocol: "minecraft",
				TLSConfig:   clientTLS,
				Conn:        noKeepalive(),
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Subprotocol() != "minecraft" {
				t.Fatalf("subprotocol %q", c.Subprotocol())
			}
			e := NewEncoder(c)
			want := randomStream(3, interopBytes)
			go func() {
				for _, p := range randomSplits(4, want) {
					if _, err := e.Write(p); err != nil {
						return
					}
				}
			}()
			got, buf := make([]byte, 0, len(want)), make([]byte, 7777)
			for len(got) < len(want) {
				n, err := c.Read(buf)
				if err != nil {
					t.Fatalf("after %d bytes: %v", len(got), err)
				}
				got = append(got, buf[:n]...)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("echoed stream differs")
			}
			c.Close()
			if err := <-srvDone; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// gorillaEchoServer checks the request, echoes each message back in up to
// three messages, pings now and then, and reports how the session ended.
func gorillaEchoServer(t *testing.T, done chan<- error) http.Handler {
	up := websocket.Upgrader{Subprotocols: []string{"minecraft"}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "play.example.net" || r.Header.Get("X-Token") != "secret" || r.URL.RawQuery != "x=1" {
			done <- errors.New("request lacks the Host, header or query the client set")
		}
		if r.TLS != nil && r.TLS.ServerName != "example.com" {
			done <- errors.New("TLS server name is not the one the client set")
		}
		gc, err := up.Upgrade(w, r, nil)
		if err != nil {
			done <- err
			return
		}
		defer gc.Close()
		pings, pongs := 0, 0
		gc.SetPongHandler(func(string) error { pongs++; return nil })
		rng := rand.New(rand.NewPCG(5, 5))
		for {
			_, msg, err := gc.ReadMessage()
			if err != nil {
				if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
					done <- err
				} else if pongs != pings {
					done <- errors.New("client did not answer every ping")
				} else {
					done <- nil
				}
				return
			}
			if rng.IntN(5) == 0 {
				_ = gc.WriteMessage(websocket.PingMessage, []byte("hi"))
				pings++
			}
			for len(msg) > 0 {
				n := min(len(msg), 1+rng.IntN(len(msg)))
				if err := gc.WriteMessage(websocket.BinaryMessage, msg[:n]); err != nil {
					done <- err
					return
				}
				msg = msg[n:]
			}
		}
	})
}

// TestGorillaClientGetsCloseCodes: over a real socket, a text message
// gets 1003 and an oversize message 1009, as gorilla's client reads them.
func TestGorillaClientGetsCloseCodes(t *testing.T) {
	for _, layer := range tlsLayers(t) {
		layer.run(t, testGorillaClientGetsCloseCodes)
	}
}

func testGorillaClientGetsCloseCodes(t *testing.T, layer tlsLayer) {
	testutil.CheckGoroutines(t)
	cfg := noKeepalive()
	cfg.MaxMessageSize = 1000
	url := startServer(t, ServerConfig{Conn: cfg}, layer.orNil(), echo)
	dialer := websocket.Dialer{TLSClientConfig: layer.client}
	cases := []struct {
		typ  int
		msg  []byte
		code int
	}{
		{websocket.TextMessage, []byte("hello"), websocket.CloseUnsupportedData},
		{websocket.BinaryMessage, make([]byte, 5000), websocket.CloseMessageTooBig},
	}
	for _, tc := range cases {
		gc, _, err := dialer.Dial(url+"/mc", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := gc.WriteMessage(tc.typ, tc.msg); err != nil {
			t.Fatal(err)
		}
		_, _, err = gc.ReadMessage()
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != tc.code || ce.Text == "" {
			t.Errorf("message type %d: %v, want close %d with a reason", tc.typ, err, tc.code)
		}
		gc.Close()
	}
}
