package ws

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/loop"
)

// loopWait bounds every wait of the loop tests.
const loopWait = 10 * time.Second

// loopRelay is the relay's loop path in small: Server upgrades, the handler detaches the Conn
// and registers it with a dialed TCP backend on an engine; each session's end is reported.
type loopRelay struct {
	addr    string
	results chan loop.Result
	sess    chan *loop.Session
}

type loopRelayConfig struct {
	conn    Config
	engine  loop.Config
	backend string
	tweak   func(*LoopCodec)
	// before runs on the upgraded Conn before Detach and returns stream bytes read for the
	// backend (the relay's Minecraft hello).
	before func(*Conn) []byte
}

func startLoopRelay(t *testing.T, rc loopRelayConfig) *loopRelay {
	t.Helper()
	e, err := loop.New(rc.engine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	lr := &loopRelay{results: make(chan loop.Result, 8), sess: make(chan *loop.Session, 8)}
	srv := NewServer(ServerConfig{Conn: rc.conn}, func(c *Conn, _ *http.Request) {
		var pending []byte
		if rc.before != nil {
			pending = rc.before(c)
		}
		if err := lr.register(e, c, rc, pending); err != nil {
			t.Errorf("register: %v", err)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	lr.addr = ln.Addr().String()
	return lr
}

func (lr *loopRelay) register(e *loop.Engine, c *Conn, rc loopRelayConfig, pending []byte) error {
	raw, st, err := c.Detach()
	if err != nil {
		return err
	}
	codec := NewLoopCodec(st, nil)
	if rc.tweak != nil {
		rc.tweak(codec)
	}
	backend, err := net.DialTimeout("tcp", rc.backend, loopWait)
	if err != nil {
		raw.Close()
		return err
	}
	s, err := e.Register(loop.Spec{
		Client:  loop.Side{Conn: raw, Codec: codec, Pending: pending},
		Backend: loop.Side{Conn: backend},
		OnClose: func(r loop.Result) { lr.results <- r },
	})
	if err == nil {
		lr.sess <- s
	}
	return err
}

// result waits for the next session's end.
func (lr *loopRelay) result(t *testing.T) loop.Result {
	t.Helper()
	select {
	case r := <-lr.results:
		return r
	case <-time.After(loopWait):
		t.Fatal("the session did not end")
		return loop.Result{}
	}
}

func (lr *loopRelay) session(t *testing.T) *loop.Session {
	t.Helper()
	select {
	case s := <-lr.sess:
		return s
	case <-time.After(loopWait):
		t.Fatal("no session was registered")
		return nil
	}
}

func (lr *loopRelay) dial(t *testing.T) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: loopWait}
	conn, _, err := d.DialContext(context.Background(), "ws://"+lr.addr+DefaultPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetReadDeadline(time.Now().Add(loopWait))
	return conn
}

// echoBackend echoes every connection until its end, then half-closes.
func echoBackend(t *testing.T) string {
	return testutil.Serve(t, func(c net.Conn) {
		defer c.Close()
		c.SetDeadline(time.Now().Add(loopWait))
		io.Copy(c, c)
		c.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, c)
	}).Addr().String()
}

// sinkBackend collects what each connection sends until its end, and reports it.
func sinkBackend(t *testing.T, got chan<- []byte) string {
	return testutil.Serve(t, func(c net.Conn) {
		defer c.Close()
		c.SetDeadline(time.Now().Add(loopWait))
		b, _ := io.ReadAll(c)
		got <- b
	}).Addr().String()
}

func noKeepaliveRelay(backend string) loopRelayConfig {
	return loopRelayConfig{conn: noKeepalive(), engine: loop.Config{Loops: 1}, backend: backend}
}

// expectClose reads until the close frame and checks its code.
func expectClose(t *testing.T, conn *websocket.Conn, want int) *websocket.CloseError {
	t.Helper()
	ce, err := testutil.ReadUntilClose(conn, loopWait)
	if ce == nil || ce.Code != want {
		t.Fatalf("close %v (%v), want close code %d", ce, err, want)
	}
	return ce
}

// TestLoopCodecEchoThroughLoop: gorilla's messages of random sizes go through the loop to an
// echo backend and back, byte for byte, while gorilla pings; a client close ends the session
// cleanly.
func TestLoopCodecEchoThroughLoop(t *testing.T) {
	lr := startLoopRelay(t, noKeepaliveRelay(echoBackend(t)))
	conn := lr.dial(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var sent []byte
	pongs := make(chan string, 100)
	conn.SetPongHandler(func(p string) error { pongs <- p; return nil })
	done := make(chan []byte)
	go func() {
		var got []byte
		for len(got) < 2_000_000 {
			_, m, err := conn.ReadMessage()
			if err != nil {
				break
			}
			got = append(got, m...)
		}
		done <- got
	}()
	for i := 0; len(sent) < 2_000_000; i++ {
		m := make([]byte, min(1+rng.IntN(100_000), 2_000_000-len(sent)))
		for j := range m {
			m[j] = byte(rng.Uint32())
		}
		if err := conn.WriteMessage(websocket.BinaryMessage, m); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			conn.WriteControl(websocket.PingMessage, []byte{byte(i)}, time.Now().Add(loopWait))
		}
		sent = append(sent, m...)
	}
	got := <-done
	if !bytes.Equal(got, sent) {
		t.Fatalf("echo: %d bytes back of %d, equal %v", len(got), len(sent), bytes.Equal(got[:min(len(got), len(sent))], sent[:min(len(got), len(sent))]))
	}
	if len(pongs) == 0 {
		t.Fatal("no pong came back")
	}
	conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(loopWait))
	expectClose(t, conn, websocket.CloseNormalClosure)
	if r := lr.result(t); r.Err != nil || r.Up != int64(len(sent)) || r.Down != int64(len(sent)) {
		t.Fatalf("result %+v, want a clean end with %d bytes each way", r, len(sent))
	}
}

// TestLoopCodecCloseCodes: the close frame says why the session ended, as the goroutine path's.
func TestLoopCodecCloseCodes(t *testing.T) {
	byeBackend := testutil.Serve(t, func(c net.Conn) {
		defer c.Close()
		c.Write([]byte("bye"))
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(loopWait))
		io.Copy(io.Discard, c)
	}).Addr().String()
	errBackend := errors.New("backend failed")
	tweak := func(c *LoopCodec) {
		c.SetClose(CloseNormal, "server closed the connection")
		c.SetCloseFor(func(reason error) (CloseCode, string) {
			if errors.Is(reason, errBackend) {
				return CloseInternalError, "backend_error"
			}
			return CloseGoingAway, "shutdown"
		})
	}
	relay := func(backend string) *loopRelay {
		rc := noKeepaliveRelay(backend)
		rc.tweak = tweak
		return startLoopRelay(t, rc)
	}
	t.Run("backend ends", func(t *testing.T) {
		lr := relay(byeBackend)
		conn := lr.dial(t)
		_, m, err := conn.ReadMessage()
		if err != nil || string(m) != "bye" {
			t.Fatalf("read %q, %v", m, err)
		}
		if ce := expectClose(t, conn, websocket.CloseNormalClosure); ce.Text != "server closed the connection" {
			t.Fatalf("close reason %q", ce.Text)
		}
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(loopWait))
		if r := lr.result(t); r.Err != nil {
			t.Fatalf("session ended with %v, want a clean end", r.Err)
		}
	})
	lr := relay(echoBackend(t))
	t.Run("session closed for an error", func(t *testing.T) {
		conn := lr.dial(t)
		lr.session(t).Close(errBackend) // the relay's backend failure
		if ce := expectClose(t, conn, websocket.CloseInternalServerErr); ce.Text != "backend_error" {
			t.Fatalf("close reason %q", ce.Text)
		}
		if r := lr.result(t); r.Err != errBackend {
			t.Fatalf("session ended with %v", r.Err)
		}
	})
	t.Run("client closes with a code of its own", func(t *testing.T) {
		conn := lr.dial(t)
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "mine"), time.Now().Add(loopWait))
		expectClose(t, conn, 4000)
		var ce *CloseError
		if r := lr.result(t); !errors.As(r.Err, &ce) || ce.Code != 4000 || ce.Reason != "mine" {
			t.Fatalf("session ended with %v, want the client's close", r.Err)
		}
	})
}

// TestLoopCodecOversizedFrame: a frame over the limit is answered with 1009 and ends the
// session with the protocol error.
func TestLoopCodecOversizedFrame(t *testing.T) {
	rc := noKeepaliveRelay(echoBackend(t))
	rc.conn.MaxFrameSize = 1000
	lr := startLoopRelay(t, rc)
	conn := lr.dial(t)
	// More than the loop reads at once: it closes with bytes unread, and the kernel resets.
	wrote := make(chan error, 1)
	go func() { wrote <- conn.WriteMessage(websocket.BinaryMessage, make([]byte, 16<<20)) }()
	expectClose(t, conn, websocket.CloseMessageTooBig)
	if err := <-wrote; err == nil {
		t.Fatal("the whole message was taken, want a reset after the close")
	}
	var se *pipe.SideError
	var pe *ProtocolError
	r := lr.result(t)
	if !errors.As(r.Err, &se) || se.Side != loop.Client.String() || !errors.As(r.Err, &pe) || pe.Code != CloseMessageTooBig {
		t.Fatalf("session ended with %v, want the client's 1009", r.Err)
	}
}

// TestLoopCodecKeepalive: an idle client gets pings from the loop's wheel; one that answers
// nothing is closed as dead (1001) after DeadPeerIntervals intervals.
func TestLoopCodecKeepalive(t *testing.T) {
	rc := noKeepaliveRelay(echoBackend(t))
	rc.conn.PingInterval, rc.conn.DeadPeerIntervals = 20*time.Millisecond, 3
	rc.engine.Tick = time.Millisecond
	lr := startLoopRelay(t, rc)
	conn := lr.dial(t)
	var pings int
	conn.SetPingHandler(func(string) error { pings++; return nil }) // no pong: a dead peer
	ce := expectClose(t, conn, websocket.CloseGoingAway)
	var dead *DeadPeerError
	if r := lr.result(t); !errors.As(r.Err, &dead) || ce.Text != dead.Reason() {
		t.Fatalf("session ended with %v, close reason %q; want a dead peer", r.Err, ce.Text)
	}
	if pings < 2 {
		t.Fatalf("%d pings before the close, want one per interval", pings)
	}
}

// TestLoopCodecDetachMidFrame: the hello is read on the goroutine up to a cut inside a frame
// (its header, its payload, a ping's payload); after Detach the loop carries on from the cut
// with what the peer sent, which is still in the socket.
func TestLoopCodecDetachMidFrame(t *testing.T) {
	first := bytes.Repeat([]byte("0123456789"), 10)
	second := bytes.Repeat([]byte("abcdefghij"), 100)
	wire := append(frame(true, OpBinary, first, testKey), frame(true, OpPing, []byte("abc"), testKey)...)
	wire = append(wire, frame(true, OpBinary, second, testKey+1)...)
	for _, tc := range []struct{ cut, read int }{
		{50, 50 - 6},       // inside the first frame's payload
		{106 + 4, 100},     // inside the ping's header
		{106 + 6 + 1, 100}, // inside the ping's payload
	} {
		cut := tc.cut
		got := make(chan []byte, 1)
		rc := noKeepaliveRelay(sinkBackend(t, got))
		sent := make(chan struct{})
		rc.before = func(c *Conn) []byte {
			<-sent
			buf := make([]byte, cut)
			n, err := c.Read(buf)
			if err != nil || n != tc.read {
				t.Errorf("cut %d: read %d payload bytes, %v; want %d", cut, n, err, tc.read)
			}
			return buf[:n]
		}
		lr := startLoopRelay(t, rc)
		conn := lr.dial(t)
		raw := conn.NetConn()
		raw.Write(wire)
		close(sent)
		pong := []byte{0x8a, 0x03, 'a', 'b', 'c'}
		reply := make([]byte, len(pong))
		raw.SetReadDeadline(time.Now().Add(loopWait))
		if _, err := io.ReadFull(raw, reply); err != nil || !bytes.Equal(reply, pong) {
			t.Fatalf("cut %d: got % x, %v; want the pong", cut, reply, err)
		}
		raw.Write(frame(true, OpClose, []byte{0x03, 0xe8}, testKey))
		want := append(bytes.Clone(first), second...)
		if b := <-got; !bytes.Equal(b, want) {
			t.Fatalf("cut %d: backend got %d bytes, want %d", cut, len(b), len(want))
		}
		if r := lr.result(t); r.Err != nil {
			t.Fatalf("cut %d: session ended with %v", cut, r.Err)
		}
	}
}

// TestDetachRefusals: Detach of a client, of a Conn whose Read waits, of a closed one.
func TestDetachRefusals(t *testing.T) {
	if _, _, err := NewConn(&scriptConn{}, RoleClient, noKeepalive()).Detach(); err != ErrNotServer {
		t.Fatalf("client: %v", err)
	}
	a, b := net.Pipe()
	defer b.Close()
	cfg := noKeepalive()
	cfg.CloseTimeout = 10 * time.Millisecond
	c := NewConn(a, RoleServer, cfg)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.Read(make([]byte, 10)) }()
	for c.reader.Load()&readerWaiting == 0 {
		time.Sleep(time.Millisecond)
	}
	if _, _, err := c.Detach(); err != ErrBusy {
		t.Fatalf("read waiting: %v", err)
	}
	c.Close() // ends the Read: the pipe has no reader for the close frame, CloseTimeout bounds it
	wg.Wait()
	if _, _, err := c.Detach(); err != ErrClosed {
		t.Fatalf("closed: %v", err)
	}
}
