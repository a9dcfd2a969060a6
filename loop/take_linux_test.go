package loop

import (
	"errors"
	"testing"
	"time"
)

// TestTakenSessionGoesOnInAnotherEngine: sessions taken from one engine in the middle of their
// streams, through a codec in the middle of a frame, and adopted by another go on there with
// every byte once and their counts continued; the first engine runs no OnClose for them and
// counts them no more.
func TestTakenSessionGoesOnInAnotherEngine(t *testing.T) {
	const bytesEach = 300_000
	from := newEngine(t, Config{Loops: 1})
	to := newEngine(t, Config{Loops: 2, Balance: noBalance})
	ls := newListeners(t)
	var pairs []*pair
	for i := range 4 {
		pairs = append(pairs, ls.open(t, from, func(s *Spec) {
			if i%2 == 1 {
				s.Client.Codec = &frameCodec{}
			}
		}))
	}
	halfway := make(chan struct{}) // the second half of each stream goes after every session moved
	wait := streamBothWays(pairs, bytesEach, halfway)
	adopted := make([]chan Result, len(pairs))
	for i, p := range pairs {
		m := takeWhenMovable(t, p.sess)
		adopted[i] = make(chan Result, 1)
		if _, err := to.Adopt(m, func(r Result) { adopted[i] <- r }); err != nil {
			t.Fatal(err)
		}
	}
	close(halfway)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		select {
		case r := <-p.closed:
			t.Fatalf("session %d: the first engine ran OnClose after Take: %+v", i, r)
		default:
		}
		r := (&pair{closed: adopted[i]}).result(t)
		if r.Err != nil || r.Up != bytesEach || r.Down != bytesEach {
			t.Errorf("session %d ended %v, up %d down %d, want clean and %d each way", i, r.Err, r.Up, r.Down, bytesEach)
		}
	}
	if n := from.Stats().Sessions; n != 0 {
		t.Errorf("the first engine still counts %d sessions", n)
	}
}

// takeWhenMovable takes s, trying again while a write is held (bytes in flight on the loop).
func takeWhenMovable(t *testing.T, s *Session) *Moved {
	t.Helper()
	for range 10_000 {
		m, err := s.Take()
		var nm *NotMovableError
		switch {
		case err == nil:
			return m
		case !errors.As(err, &nm):
			t.Fatalf("take: %v", err)
		}
	}
	t.Fatal("the session was never movable")
	return nil
}

// TestTakeRefusesWhatIsInFlight: a session whose player has ended its stream, or whose backend
// has bytes held for it, is not taken and runs on; an ended session is ErrClosed.
func TestTakeRefusesWhatIsInFlight(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	ls := newListeners(t)
	p := ls.open(t, e, nil)
	p.player.CloseWrite()
	readAll(t, p.backend) // the FIN went through: the client's stream has ended
	var nm *NotMovableError
	if _, err := p.sess.Take(); !errors.As(err, &nm) {
		t.Fatalf("take after the player's FIN: %v, want a NotMovableError", err)
	}
	p.backend.Write([]byte("still"))
	waitRead(t, p.player, "still")

	q := ls.open(t, e, nil)
	big := make([]byte, 8<<20)
	go q.player.Write(big) // the backend reads nothing: the loop ends up holding bytes for it
	for deadline := time.Now().Add(waitFor); e.Stats().Held == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the loop never held bytes for the backend")
		}
	}
	if _, err := q.sess.Take(); !errors.As(err, &nm) {
		t.Fatalf("take with bytes held: %v, want a NotMovableError", err)
	}
	q.sess.Close(nil)
	q.result(t)
	if _, err := q.sess.Take(); !errors.Is(err, ErrClosed) {
		t.Fatalf("take after the end: %v, want ErrClosed", err)
	}
}
