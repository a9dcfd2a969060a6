package loop

import (
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPlayerThatLeftIsNoError: a player that ended its stream and closed its socket makes the
// writes to it fail (a reset, then EPIPE); that is the player having left, not an error. What
// the backend still sends is read and dropped, so the backend's writes all succeed and its
// socket is closed with a FIN once it closed its side; the session ends cleanly, the player's
// end first.
func TestPlayerThatLeftIsNoError(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	p.player.Write([]byte("bye"))
	p.player.Close()
	if got := readAll(t, p.backend); string(got) != "bye" {
		t.Fatalf("backend read %q, want bye and EOF", got)
	}
	chunk := make([]byte, 4<<10)
	for i := range 20 {
		if _, err := p.backend.Write(chunk); err != nil {
			t.Fatalf("the backend's write %d after the player left: %v", i, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	p.backend.CloseWrite()
	if r := p.result(t); r.Err != nil || r.FirstEnd != Client {
		t.Fatalf("result %+v, want a clean end, the client's stream ended first", r)
	}
	p.backend.SetReadDeadline(time.Now().Add(waitFor))
	if _, err := p.backend.Read(chunk); err != io.EOF {
		t.Fatalf("the backend's read after the session: %v, want EOF (a FIN, not a reset)", err)
	}
}

// TestDrainIsBounded: a backend that neither closes nor stops sending after the player left
// holds the session for Config.Drain, and the end is still clean.
func TestDrainIsBounded(t *testing.T) {
	const drain = 200 * time.Millisecond
	e := newEngine(t, Config{Loops: 1, Drain: drain, Tick: 10 * time.Millisecond})
	p := newListeners(t).open(t, e, nil)
	p.player.Close()
	readAll(t, p.backend)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for chunk := make([]byte, 1<<10); ; time.Sleep(2 * time.Millisecond) {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := p.backend.Write(chunk); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	r := p.result(t)
	if took := time.Since(start); r.Err != nil || took > 10*drain {
		t.Fatalf("result %+v after %v, want a clean end after about %v", r, took, drain)
	}
}

// TestPlayerResetAfterItsFINLeft: a player that sends its FIN and then closes with bytes unread
// (a reset) before the loop has read the FIN has left all the same: the kernel keeps the FIN
// for the read and says EPIPE (not ECONNRESET) for the reset. The session ends cleanly, the
// backend gets the end as a FIN. A reset with no FIN before it is still the player's error.
func TestPlayerResetAfterItsFINLeft(t *testing.T) {
	for _, fin := range []bool{true, false} {
		e := newEngine(t, Config{Loops: 1})
		ls := newListeners(t)
		player, accepted, dialed, backend := ls.connect(t)
		t.Cleanup(func() { player.Close(); backend.Close() })
		accepted.Write(make([]byte, 1<<10)) // unread by the player: its close is a reset
		if fin {
			player.CloseWrite()
		} else {
			player.SetLinger(0)
		}
		player.Close()
		waitUntilReset(t, accepted)
		closed := make(chan Result, 1)
		if _, err := e.Register(Spec{Client: Side{Conn: accepted}, Backend: Side{Conn: dialed},
			OnClose: func(r Result) { closed <- r }}); err != nil {
			t.Fatal(err)
		}
		p := &pair{player: player, backend: backend, closed: closed}
		if !fin {
			if se := sideError(t, p.result(t)); se.Side != "client" {
				t.Errorf("a reset without a FIN ended as %v, want the client's error", se)
			}
			continue
		}
		if got := readAll(t, backend); len(got) != 0 {
			t.Fatalf("the backend read %d bytes, want only the player's end", len(got))
		}
		backend.CloseWrite()
		if r := p.result(t); r.Err != nil || r.FirstEnd != Client {
			t.Fatalf("result %+v, want a clean end, the client's stream ended first", r)
		}
	}
}

// waitUntilReset waits until c's peer's reset has come (TCP state CLOSE).
func waitUntilReset(t *testing.T, c *net.TCPConn) {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(waitFor); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var state uint8
		raw.Control(func(fd uintptr) {
			if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
				state = info.State
			}
		})
		if state == tcpClose {
			return
		}
	}
	t.Fatal("the player's reset did not come")
}

// tcpClose is Linux's TCP_CLOSE state (include/net/tcp_states.h).
const tcpClose = 7
