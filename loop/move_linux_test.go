package loop

import (
	"bytes"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// noBalance keeps the balancer out of tests that move sessions themselves.
const noBalance = time.Hour

// moveAll has loop from give all of its sessions to loop to, and waits until it has none (the
// ones that ended meanwhile included).
func moveAll(t testing.TB, e *Engine, from, to int) {
	t.Helper()
	e.loops[from].post(command{shed: &shedOrder{to: e.loops[to], share: 1}})
	deadline := time.Now().Add(waitFor)
	for e.loops[from].count.Load() > 0 || e.loops[to].count.Load() < e.sessions.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("loop %d still has %d sessions, moves %d", from, e.loops[from].count.Load(), e.moves.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// stream writes n bytes of a pattern to w in pieces, as frames of frameCodec when framed,
// pausing now and then so that the stream lasts while the test moves its session, and halfway
// until halfway is closed (nil: no wait).
func stream(w io.Writer, n int, seed byte, framed bool, halfway <-chan struct{}) error {
	for sent, pieces := 0, 0; sent < n; pieces++ {
		if pieces%8 == 7 {
			time.Sleep(time.Millisecond)
		}
		if sent >= n/2 && halfway != nil {
			<-halfway
			halfway = nil
		}
		k := min(200, n-sent)
		piece := make([]byte, 0, k+1)
		if framed {
			piece = append(piece, byte(k))
		}
		for i := range k {
			piece = append(piece, seed+byte((sent+i)%251))
		}
		if _, err := w.Write(piece); err != nil {
			return err
		}
		sent += k
	}
	return nil
}

// TestMovedSessionsKeepEveryByte: sessions moved back and forth between two loops while bytes
// flow both ways, through a codec that is in the middle of a frame as often as not, lose and
// double nothing, and end once with the right counts.
func TestMovedSessionsKeepEveryByte(t *testing.T) {
	const sessions, bytesEach = 6, 400_000
	e := newEngine(t, Config{Loops: 2, Balance: noBalance})
	ls := newListeners(t)
	var pairs []*pair
	for i := range sessions {
		framed := i%2 == 1
		pairs = append(pairs, ls.open(t, e, func(s *Spec) {
			if framed {
				s.Client.Codec = &frameCodec{}
			}
		}))
	}
	halfway := make(chan struct{}) // the streams wait there until the sessions have moved enough
	wait := streamBothWays(pairs, bytesEach, halfway)
	done := make(chan struct{})
	var streamErr error
	go func() { streamErr = wait(); close(done) }()
	moved := 0
	for from := 0; ; from = 1 - from {
		select {
		case <-done:
		default:
			moveAll(t, e, from, 1-from)
			if moved++; moved == 20 {
				close(halfway)
			}
			time.Sleep(2 * time.Millisecond)
			continue
		}
		break
	}
	if streamErr != nil {
		t.Fatal(streamErr)
	}
	for i, p := range pairs {
		r := p.result(t)
		wantDown := int64(bytesEach)
		if r.Err != nil || r.Up != bytesEach || r.Down != wantDown {
			t.Errorf("session %d ended %v, up %d down %d, want clean, %d each way", i, r.Err, r.Up, r.Down, bytesEach)
		}
	}
	t.Logf("%d moves of all sessions while %d bytes went each way per session", moved, bytesEach)
}

// streamBothWays sends bytesEach bytes each way through every pair (framed by frameCodec on the
// player's side of every odd pair), each stream pausing halfway until halfway is closed, and
// returns a wait for them all: the first stream that differs or failed.
func streamBothWays(pairs []*pair, bytesEach int, halfway <-chan struct{}) (wait func() error) {
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(pairs))
	for i, p := range pairs {
		framed := i%2 == 1
		wg.Add(4)
		go func() {
			defer wg.Done()
			errs <- stream(p.player, bytesEach, byte(i), framed, halfway)
			p.player.CloseWrite()
		}()
		go func() {
			defer wg.Done()
			errs <- stream(p.backend, bytesEach, byte(i+100), false, halfway)
			p.backend.CloseWrite()
		}()
		go func() { defer wg.Done(); errs <- expect(p.backend, bytesEach, byte(i), false) }()
		go func() { defer wg.Done(); errs <- expect(p.player, bytesEach, byte(i+100), framed) }()
	}
	return func() error {
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// expect reads c to its end, which must be n bytes of stream's pattern (framed: as frameCodec
// frames), and says where they first differ.
func expect(c net.Conn, n int, seed byte, framed bool) error {
	c.SetReadDeadline(time.Now().Add(waitFor))
	got, err := io.ReadAll(c)
	if err != nil {
		return err
	}
	if framed {
		got = unframe(got)
	}
	want := make([]byte, n)
	for i := range want {
		want[i] = seed + byte(i%251)
	}
	if !bytes.Equal(got, want) {
		at := 0
		for at < min(len(got), n) && got[at] == want[at] {
			at++
		}
		return errors.New("stream differs at byte " + itoa(at) + " of " + itoa(n) + " (got " + itoa(len(got)) + ")")
	}
	return nil
}

// unframe strips frameCodec's data headers.
func unframe(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		k := int(b[0])
		b = b[1:]
		k = min(k, len(b))
		out = append(out, b[:k]...)
		b = b[k:]
	}
	return out
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// TestCommandsFollowAMovedSession: a Send and a Close made after a session moved reach it on its
// new loop, and OnClose runs once.
func TestCommandsFollowAMovedSession(t *testing.T) {
	e := newEngine(t, Config{Loops: 2, Balance: noBalance})
	p := newListeners(t).open(t, e, nil)
	moveAll(t, e, 0, 1)
	if got := e.Stats().PerLoop; !slices.Equal(got, []int64{0, 1}) {
		t.Fatalf("sessions per loop %v after the move, want 0 1", got)
	}
	p.sess.Send(func() []byte { return []byte("sent") })
	waitRead(t, p.player, "sent")
	p.backend.Write([]byte("after"))
	waitRead(t, p.player, "after")
	reason := errors.New("kicked")
	p.sess.Close(reason)
	if r := p.result(t); !errors.Is(r.Err, reason) {
		t.Fatalf("ended with %v, want %v", r.Err, reason)
	}
	select {
	case r := <-p.closed:
		t.Fatalf("OnClose ran twice: %v", r)
	case <-time.After(100 * time.Millisecond):
	}
	if st := e.Stats(); st.Sessions != 0 || !slices.Equal(st.PerLoop, []int64{0, 0}) {
		t.Fatalf("after the end: %d sessions, per loop %v", st.Sessions, st.PerLoop)
	}
}
