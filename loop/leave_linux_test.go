package loop

import (
	"io"
	"testing"
	"time"
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
