package loop

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// TestSendDeliversToTheClientBetweenTheBackendsBytes: what a Send returns reaches the player
// in stream order with what the backend sent before and after it, counts as bytes down, and
// runs on the loop (the fill sees the codec state the loop left).
func TestSendDeliversToTheClientBetweenTheBackendsBytes(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	p.backend.Write([]byte("before|"))
	waitRead(t, p.player, "before|")
	ran := make(chan struct{})
	p.sess.Send(func() []byte { close(ran); return []byte("sent|") })
	<-ran
	p.backend.Write([]byte("after"))
	p.backend.Close()
	p.player.CloseWrite()
	if got := readAll(t, p.player); string(got) != "sent|after" {
		t.Fatalf("player got %q after the first bytes, want %q", got, "sent|after")
	}
	if r := p.result(t); r.Down != int64(len("before|sent|after")) {
		t.Fatalf("bytes down %d, want %d", r.Down, len("before|sent|after"))
	}
}

// TestSendAfterTheEndRunsNothing: a Send to a session that has ended does not run its fill.
func TestSendAfterTheEndRunsNothing(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, nil)
	p.sess.Close(nil)
	p.result(t)
	ran := make(chan struct{}, 1)
	p.sess.Send(func() []byte { ran <- struct{}{}; return []byte("late") })
	select {
	case <-ran:
		t.Fatal("the fill of a Send to an ended session ran")
	case <-time.After(200 * time.Millisecond):
	}
}

// waitRead reads exactly want from c within the tests' bound.
func waitRead(t testing.TB, c io.Reader, want string) {
	t.Helper()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, []byte(want)) {
		t.Fatalf("read %q (%v), want %q", got, err, want)
	}
}
