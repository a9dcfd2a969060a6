package loop

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRelaysEveryByteBothWays sends 4 MiB each way at once in writes of random sizes, with two
// loops and a small buffer so that reads split writes and writes are partial.
func TestRelaysEveryByteBothWays(t *testing.T) {
	e := newEngine(t, Config{Loops: 2, BufferSize: 4096})
	p := newListeners(t).open(t, e, nil)
	up, down := randomBytes(4<<20, 1), randomBytes(4<<20, 2)
	var wg sync.WaitGroup
	var gotUp, gotDown []byte
	wg.Add(4)
	go func() { defer wg.Done(); writeChunks(p.player, up, 3); p.player.CloseWrite() }()
	go func() { defer wg.Done(); writeChunks(p.backend, down, 4); p.backend.CloseWrite() }()
	go func() { defer wg.Done(); gotUp = readAll(t, p.backend) }()
	go func() { defer wg.Done(); gotDown = readAll(t, p.player) }()
	wg.Wait()
	if !bytes.Equal(gotUp, up) || !bytes.Equal(gotDown, down) {
		t.Fatalf("up: %d bytes, equal %v; down: %d bytes, equal %v", len(gotUp), bytes.Equal(gotUp, up), len(gotDown), bytes.Equal(gotDown, down))
	}
	r := p.result(t)
	if r.Err != nil || r.Up != int64(len(up)) || r.Down != int64(len(down)) {
		t.Fatalf("result %+v, want a clean end with %d up and %d down", r, len(up), len(down))
	}
	if st := e.Stats(); st.Sessions != 0 || st.Held != 0 {
		t.Fatalf("after the end: %+v, want nothing left", st)
	}
}

// TestHalfCloseIsPassedOn: the player's FIN reaches the backend, which still answers; the
// answer reaches the player, then the backend's FIN, and the session ends cleanly.
func TestHalfCloseIsPassedOn(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	p.player.Write([]byte("hello"))
	p.player.CloseWrite()
	if got := readAll(t, p.backend); string(got) != "hello" {
		t.Fatalf("backend read %q, want hello and EOF", got)
	}
	select {
	case r := <-p.closed:
		t.Fatalf("the session ended (%v) with the backend's direction still open", r.Err)
	case <-time.After(50 * time.Millisecond):
	}
	p.backend.Write([]byte("bye"))
	p.backend.CloseWrite()
	if got := readAll(t, p.player); string(got) != "bye" {
		t.Fatalf("player read %q, want bye and EOF", got)
	}
	if r := p.result(t); r.Err != nil || r.Up != 5 || r.Down != 3 || r.FirstEnd != Client {
		t.Fatalf("result %+v, want a clean end, 5 up, 3 down, the client's stream ended first", r)
	}
}

// TestFirstEndNamesTheBackend: a backend that ends its stream first is named so in the result
// (the relay's end line says "backend closed the connection").
func TestFirstEndNamesTheBackend(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	p.backend.CloseWrite()
	if got := readAll(t, p.player); len(got) != 0 {
		t.Fatalf("player read %q, want EOF", got)
	}
	p.player.CloseWrite()
	if r := p.result(t); r.Err != nil || r.FirstEnd != Backend {
		t.Fatalf("result %+v, want a clean end, the backend's stream ended first", r)
	}
}

// TestResetEndsTheSessionWithItsSide: a backend that resets ends the session; the reason
// names the backend, and the player's connection is closed.
func TestResetEndsTheSessionWithItsSide(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	p.player.Write([]byte("ping"))
	buf := make([]byte, 4)
	p.backend.SetReadDeadline(time.Now().Add(waitFor))
	if _, err := io.ReadFull(p.backend, buf); err != nil {
		t.Fatal(err)
	}
	p.backend.SetLinger(0)
	p.backend.Close() // RST
	se := sideError(t, p.result(t))
	if se.Side != Backend.String() || !errors.Is(se.Err, syscall.ECONNRESET) {
		t.Fatalf("reason %v, want the backend's connection reset", se)
	}
	p.player.SetReadDeadline(time.Now().Add(waitFor))
	if _, err := p.player.Read(buf); err == nil {
		t.Fatal("the player's connection is still open")
	}
}

// TestStalledReaderHoldsOneBatchAndRecovers: while the backend reads nothing the player keeps
// sending; the loop holds at most one batch for it (then stops reading the player), and once
// the backend reads, every byte arrives and nothing stays held.
func TestStalledReaderHoldsOneBatchAndRecovers(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	data := randomBytes(16<<20, 3)
	sent := make(chan int, 1)
	go func() {
		p.player.SetWriteDeadline(time.Now().Add(time.Second))
		n, _ := p.player.Write(data) // stops at the deadline: the kernel's buffers and the loop's are full
		sent <- n
	}()
	n := <-sent
	if n == len(data) {
		t.Fatalf("all %d bytes went through a backend that reads nothing: nothing was held back", n)
	}
	st := e.Stats()
	if st.Held != 1 {
		t.Fatalf("%+v while the backend stalled, want exactly one held batch", st)
	}
	p.player.CloseWrite()
	got := readAll(t, p.backend)
	if !bytes.Equal(got, data[:n]) {
		t.Fatalf("backend got %d bytes (equal %v), player sent %d", len(got), bytes.Equal(got, data[:len(got)]), n)
	}
	if st := e.Stats(); st.Held != 0 {
		t.Fatalf("%+v after the backend caught up, want nothing held", st)
	}
}

// TestShutSocketBehindAStalledReaderIsNotSpun: the backend has ended its stream and reads
// nothing; the player sends until the loop holds bytes for the backend (and stops reading the
// player), then a little more and FIN, which still fit the player's socket. That socket is now
// shut both ways while its reading is paused, which level-triggered epoll reports on every
// wait: the loop must neither spin on it nor take it for a hang-up, and once the backend reads,
// everything arrives and the session ends cleanly.
func TestShutSocketBehindAStalledReaderIsNotSpun(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	p.backend.CloseWrite()
	if got := readAll(t, p.player); len(got) != 0 {
		t.Fatalf("player read %d bytes, want EOF", len(got))
	}
	var sent []byte
	chunk := randomBytes(64<<10, 4)
	for deadline := time.Now().Add(waitFor); e.Stats().Held == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the loop never held bytes for the stalled backend")
		}
		p.player.Write(chunk)
		sent = append(sent, chunk...)
	}
	p.player.Write(chunk[:1000])
	sent = append(sent, chunk[:1000]...)
	p.player.CloseWrite()
	time.Sleep(20 * time.Millisecond) // the FIN arrives
	before := e.Stats().Wakeups
	time.Sleep(100 * time.Millisecond)
	if woke := e.Stats().Wakeups - before; woke > 10 {
		t.Fatalf("the loop woke %d times in 100 ms with nothing to do", woke)
	}
	if got := readAll(t, p.backend); !bytes.Equal(got, sent) {
		t.Fatalf("backend got %d bytes, player sent %d", len(got), len(sent))
	}
	if r := p.result(t); r.Err != nil {
		t.Fatalf("reason %v, want a clean end", r.Err)
	}
}

// TestPendingBytesGoFirst: what a side had buffered before the handover reaches the other
// side before anything read later.
func TestPendingBytesGoFirst(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, func(s *Spec) {
		s.Client.Pending = []byte("login start|")
		s.Backend.Pending = []byte("early|")
	})
	p.player.Write([]byte("later"))
	p.player.CloseWrite()
	p.backend.CloseWrite()
	if got := readAll(t, p.backend); string(got) != "login start|later" {
		t.Fatalf("backend read %q", got)
	}
	if got := readAll(t, p.player); string(got) != "early|" {
		t.Fatalf("player read %q", got)
	}
	if r := p.result(t); r.Err != nil || r.Up != 17 || r.Down != 6 {
		t.Fatalf("result %+v", r)
	}
}

// TestSessionCloseAndEngineClose: Session.Close ends one session with the relay's reason;
// Engine.Close ends the rest with ErrShutdown and refuses new ones.
func TestSessionCloseAndEngineClose(t *testing.T) {
	e := newEngine(t, Config{Loops: 2})
	ls := newListeners(t)
	a, b := ls.open(t, e, nil), ls.open(t, e, nil)
	reason := errors.New("drain deadline")
	a.sess.Close(reason)
	if r := a.result(t); r.Err != reason {
		t.Fatalf("reason %v, want %v", r.Err, reason)
	}
	e.Close()
	if r := b.result(t); r.Err != ErrShutdown {
		t.Fatalf("reason %v, want ErrShutdown", r.Err)
	}
	for _, c := range []interface{ Read([]byte) (int, error) }{a.player, b.player, a.backend, b.backend} {
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatal("a far end is still connected")
		}
	}
	_, accepted, dialed, _ := ls.connect(t)
	if _, err := e.Register(Spec{Client: Side{Conn: accepted}, Backend: Side{Conn: dialed}}); err != ErrClosed {
		t.Fatalf("Register after Close: %v, want ErrClosed", err)
	}
}

// TestRegisterRefusesWhatItCannotTake: a missing socket, one that is not a socket, or pending
// bytes over the buffer are refused, and the Conns given are closed either way.
func TestRegisterRefusesWhatItCannotTake(t *testing.T) {
	e := newEngine(t, Config{Loops: 1, BufferSize: 16})
	ls := newListeners(t)
	for _, tc := range []struct {
		name  string
		tweak func(s *Spec)
	}{
		{"no backend", func(s *Spec) { s.Backend.Conn = nil }},
		{"not a socket", func(s *Spec) { s.Backend.Conn = struct{ net.Conn }{s.Backend.Conn} }},
		{"pending over the buffer", func(s *Spec) { s.Client.Pending = make([]byte, 17) }},
	} {
		player, accepted, dialed, backend := ls.connect(t)
		spec := Spec{Client: Side{Conn: accepted}, Backend: Side{Conn: dialed}}
		tc.tweak(&spec)
		if _, err := e.Register(spec); err == nil {
			t.Fatalf("%s: registered", tc.name)
		}
		if spec.Backend.Conn == nil {
			dialed.Close() // not given to Register: the test's to close
		}
		for _, far := range []*net.TCPConn{player, backend} {
			far.SetReadDeadline(time.Now().Add(waitFor))
			if n, err := far.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("%s: a far end read %d, %v; want EOF (its Conn closed)", tc.name, n, err)
			}
			far.Close()
		}
	}
	if st := e.Stats(); st.Sessions != 0 {
		t.Fatalf("%+v after refusals", st)
	}
}

func randomBytes(n int, seed byte) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{seed}).Read(b)
	return b
}

// writeChunks writes b in pieces of 1 B to 64 KiB.
func writeChunks(c interface{ Write([]byte) (int, error) }, b []byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0))
	for len(b) > 0 {
		n := min(len(b), 1+r.IntN(64<<10))
		if _, err := c.Write(b[:n]); err != nil {
			return
		}
		b = b[n:]
	}
}
