package play

import (
	"errors"
	"testing"
)

// moveTracker is tr's state restored into a fresh tracker, as a binary upgrade does.
func moveTracker(t testing.TB, tr *Tracker) *Tracker {
	t.Helper()
	next := newTracker(t)
	if err := next.RestoreState(tr.MarshalState()); err != nil {
		t.Fatalf("restore: %v", err)
	}
	return next
}

// A tracker moved at any offset of a session's stream (in a length prefix, a head, a skipped
// body, between frames) follows it on as one that did not move: the same stops and the same end.
func TestTrackerMovesAnywhere(t *testing.T) {
	steps := recordedStream(600)
	stream, want := concat(steps), wantOutcome(steps)
	for cut := 0; cut <= len(stream); cut++ {
		tr := newTracker(t)
		var o outcome
		for i, chunk := range [][]byte{stream[:cut], stream[cut:]} {
			if i == 1 {
				tr = moveTracker(t, tr)
			}
			at := []int{0, cut}[i]
			for len(chunk) > 0 {
				n, err := tr.Feed(chunk, true)
				if err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				if n < len(chunk) || tr.Movable() {
					o.stops = append(o.stops, at+n)
				}
				chunk, at = chunk[n:], at+n
			}
		}
		o.state, o.threshold, o.movable = tr.State(), tr.Threshold(), tr.Movable()
		if !sameOutcome(o, want) {
			t.Fatalf("moved at %d: %+v, want %+v", cut, o, want)
		}
	}
}

// A lost tracker moves lost; an ended one moves ended.
func TestTrackerMovesLostAndEnded(t *testing.T) {
	lost := newTracker(t)
	lost.Feed([]byte{0xff, 0xff, 0xff, 0xff}, false) // a length prefix of four bytes
	if moved := moveTracker(t, lost); moved.Err() == nil || moved.Movable() {
		t.Errorf("a lost tracker moved as %v, movable %v", moved.Err(), moved.Movable())
	}
	ended := newTracker(t)
	for _, s := range recordedStream(10)[:3] {
		feedAll(t, ended, s.frame)
	}
	feedAll(t, ended, frame(packet{configDisconnect, []byte{0x08, 0}}, 256))
	if moved := moveTracker(t, ended); !ended.Ended() || !moved.Ended() {
		t.Errorf("ended %v, moved ended %v", ended.Ended(), moved.Ended())
	}
}

// States Feed cannot leave are refused and leave the tracker as it was.
func TestTrackerStateRefusals(t *testing.T) {
	good := newTracker(t).MarshalState()
	mutate := func(i int, v byte) []byte { b := append([]byte(nil), good...); b[i] = v; return b }
	var se *StateError
	for name, state := range map[string][]byte{
		"empty": nil, "cut": good[:10], "longer": append(append([]byte(nil), good...), 0), "format": mutate(0, 9),
		"state": mutate(1, 7), "flags": mutate(6, 0x80), "prefix bytes": mutate(23, 3),
		"body outside a frame": mutate(30, 5), "head without a frame": append(mutate(36, 1), 'x'),
		"in a body, nothing to look at": mutate(6, trackInBody),
	} {
		tr := newTracker(t)
		if err := tr.RestoreState(state); !errors.As(err, &se) {
			t.Errorf("%s: %v, want a StateError", name, err)
		}
		if tr.State() != Login || tr.Threshold() != -1 || tr.offset != 0 {
			t.Errorf("%s: the refused tracker changed", name)
		}
	}
}

// FuzzTrackerRestore: any state bytes are refused or restored, and a restored tracker reads
// any stream without a panic or a Feed that consumes nothing.
func FuzzTrackerRestore(f *testing.F) {
	tr, _ := NewTracker(FirstProtocol)
	f.Add(tr.MarshalState(), concat(recordedStream(50)))
	tr.Feed(concat(recordedStream(50))[:7], false)
	f.Add(tr.MarshalState(), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, state, stream []byte) {
		tr, _ := NewTracker(FirstProtocol)
		if tr.RestoreState(state) != nil {
			return
		}
		for len(stream) > 0 {
			n, err := tr.Feed(stream, true)
			if err != nil {
				return
			}
			if n == 0 {
				t.Fatal("Feed consumed nothing")
			}
			stream = stream[n:]
		}
	})
}
