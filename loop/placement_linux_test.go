package loop

import (
	"slices"
	"testing"
)

// TestSpreadGivesSessionsToTheLoopWithTheFewest: Spread shares sessions out evenly, and the
// loop that lost sessions gets the next ones until it has as many as the others again.
func TestSpreadGivesSessionsToTheLoopWithTheFewest(t *testing.T) {
	e := newEngine(t, Config{Loops: 3, Placement: Spread})
	ls := newListeners(t)
	var pairs []*pair
	for range 6 {
		pairs = append(pairs, ls.open(t, e, nil))
	}
	if got := e.Stats().PerLoop; !slices.Equal(got, []int64{2, 2, 2}) {
		t.Fatalf("sessions per loop %v, want 2 each", got)
	}
	// Ties go to the first loop: sessions 0 and 3 are loop 0's.
	for _, p := range []*pair{pairs[0], pairs[3]} {
		p.sess.Close(nil)
		p.result(t)
	}
	if got := e.Stats().PerLoop; !slices.Equal(got, []int64{0, 2, 2}) {
		t.Fatalf("sessions per loop after two ended %v, want 0 2 2", got)
	}
	ls.open(t, e, nil)
	ls.open(t, e, nil)
	if got := e.Stats().PerLoop; !slices.Equal(got, []int64{2, 2, 2}) {
		t.Errorf("sessions per loop %v, want the two new ones on loop 0", got)
	}
}
