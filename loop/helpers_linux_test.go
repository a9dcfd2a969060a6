package loop

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
)

// waitFor bounds every wait of these tests.
const waitFor = 10 * time.Second

// listeners are a stand-in player's way in and a stand-in backend, on loopback.
type listeners struct{ front, back net.Listener }

func newListeners(t testing.TB) *listeners {
	t.Helper()
	front, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	back, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { front.Close(); back.Close() })
	return &listeners{front, back}
}

// pair is a registered session and the two far ends the test drives.
type pair struct {
	player, backend *net.TCPConn // the player's socket and the backend server's socket
	sess            *Session
	closed          chan Result
}

// connect makes the two established connections a relay would hand over: the accepted
// player's and the dialed backend's.
func (ls *listeners) connect(t testing.TB) (player, accepted, dialed, backend *net.TCPConn) {
	t.Helper()
	player = dial(t, ls.front.Addr())
	accepted = accept(t, ls.front)
	dialed = dial(t, ls.back.Addr())
	backend = accept(t, ls.back)
	return
}

// open registers a session through e; tweak may set codecs and pending bytes.
func (ls *listeners) open(t testing.TB, e *Engine, tweak func(*Spec)) *pair {
	t.Helper()
	player, accepted, dialed, backend := ls.connect(t)
	p := &pair{player: player, backend: backend, closed: make(chan Result, 1)}
	spec := Spec{
		Client: Side{Conn: accepted}, Backend: Side{Conn: dialed},
		OnClose: func(r Result) { p.closed <- r },
	}
	if tweak != nil {
		tweak(&spec)
	}
	sess, err := e.Register(spec)
	if err != nil {
		t.Fatal(err)
	}
	p.sess = sess
	t.Cleanup(func() { player.Close(); backend.Close() })
	return p
}

func dial(t testing.TB, addr net.Addr) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr.String(), waitFor)
	if err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn)
}

func accept(t testing.TB, ln net.Listener) *net.TCPConn {
	t.Helper()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn)
}

func newEngine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// result waits for the session's OnClose.
func (p *pair) result(t testing.TB) Result {
	t.Helper()
	select {
	case r := <-p.closed:
		return r
	case <-time.After(waitFor):
		t.Fatal("the session did not end")
		return Result{}
	}
}

// readAll reads c to EOF within the tests' bound.
func readAll(t testing.TB, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(waitFor))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read to EOF: %v (after %d bytes)", err, len(b))
	}
	return b
}

// sideError is r's error as a *pipe.SideError, or a test failure.
func sideError(t testing.TB, r Result) *pipe.SideError {
	t.Helper()
	var se *pipe.SideError
	if !errors.As(r.Err, &se) {
		t.Fatalf("close reason %v (%T), want a *pipe.SideError", r.Err, r.Err)
	}
	return se
}
