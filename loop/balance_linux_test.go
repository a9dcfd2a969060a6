package loop

import (
	"io"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestPlannerMovesOnlyWhatStaysSo: a full loop sheds half the difference to the first loop
// with room after steady periods, a lone session is never split, the last busy loop goes back
// onto a light one when the two are light together, and nothing moves in the periods after a
// move.
func TestPlannerMovesOnlyWhatStaysSo(t *testing.T) {
	type step struct {
		loads  []float64
		counts []int64
		want   *moveOrder
	}
	cases := map[string][]step{
		"full for two periods spills half the difference": {
			{[]float64{0.95, 0, 0}, []int64{10, 0, 0}, nil},
			{[]float64{1, 0.2, 0}, []int64{10, 1, 0}, &moveOrder{from: 0, to: 1, share: 0.4}},
			{[]float64{1, 0, 0}, []int64{10, 0, 0}, nil}, // waiting after the move
			{[]float64{1, 0, 0}, []int64{10, 0, 0}, nil},
		},
		"a dip below full starts the count again": {
			{[]float64{0.95, 0}, []int64{4, 0}, nil},
			{[]float64{0.85, 0}, []int64{4, 0}, nil},
			{[]float64{0.95, 0}, []int64{4, 0}, nil},
		},
		"one session is not split": {
			{[]float64{1, 0}, []int64{1, 0}, nil},
			{[]float64{1, 0}, []int64{1, 0}, nil},
		},
		"no loop with room: nothing moves": {
			{[]float64{1, 0.6}, []int64{5, 5}, nil},
			{[]float64{1, 0.6}, []int64{5, 5}, nil},
		},
		"light together for two periods: the last goes onto the lightest before it": {
			{[]float64{0.3, 0.2, 0.1}, []int64{3, 2, 1}, nil},
			{[]float64{0.3, 0.2, 0.1}, []int64{3, 2, 1}, &moveOrder{from: 2, to: 1, share: 1}},
		},
		"not light enough together: they stay apart": {
			{[]float64{0.4, 0.3}, []int64{3, 3}, nil},
			{[]float64{0.4, 0.3}, []int64{3, 3}, nil},
		},
		"an emptied first loop takes the last one's sessions back": {
			{[]float64{0, 0.1}, []int64{0, 2}, nil},
			{[]float64{0, 0.1}, []int64{0, 2}, &moveOrder{from: 1, to: 0, share: 1}},
		},
	}
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) {
			var p planner
			for i, s := range steps {
				got, ok := p.plan(s.loads, s.counts)
				switch {
				case s.want == nil && ok:
					t.Fatalf("step %d: moved %+v, want nothing", i, got)
				case s.want != nil && !ok:
					t.Fatalf("step %d: nothing moved, want %+v", i, *s.want)
				case s.want != nil && (got.from != s.want.from || got.to != s.want.to ||
					got.share < s.want.share-1e-9 || got.share > s.want.share+1e-9):
					t.Fatalf("step %d: moved %+v, want %+v", i, got, *s.want)
				}
			}
		})
	}
}

// TestPackFillsTheFirstLoopAndLeavesTheOthersAsleep: under Pack, with no loop full, every new
// session goes to the first loop, and the other loops do not wake while the sessions work.
func TestPackFillsTheFirstLoopAndLeavesTheOthersAsleep(t *testing.T) {
	e := newEngine(t, Config{Loops: 3})
	ls := newListeners(t)
	var pairs []*pair
	for range 6 {
		pairs = append(pairs, ls.open(t, e, nil))
	}
	for _, p := range pairs {
		p.player.Write([]byte("up"))
		p.backend.Write([]byte("down"))
		waitRead(t, p.backend, "up")
		waitRead(t, p.player, "down")
	}
	if got := e.Stats().PerLoop; !slices.Equal(got, []int64{6, 0, 0}) {
		t.Fatalf("sessions per loop %v, want all 6 on the first", got)
	}
	for i, l := range e.loops[1:] {
		if w := l.wakeups.Load(); w > 0 {
			t.Errorf("loop %d, with no session, woke %d times", i+1, w)
		}
	}
}

// burnCodec costs its loop half a millisecond of work per read: a stand-in for a loop that is
// full.
type burnCodec struct{ Identity }

func (burnCodec) Open(in []byte) (int, []byte, error) {
	for start := time.Now(); time.Since(start) < 500*time.Microsecond; {
	}
	return len(in), nil, nil
}

// TestBalancerSpillsAFullLoopAndMergesBack: two sessions that keep the first loop full end on
// a loop each within a few balancer periods, and go back onto one loop once they are quiet.
func TestBalancerSpillsAFullLoopAndMergesBack(t *testing.T) {
	e := newEngine(t, Config{Loops: 2, Balance: 20 * time.Millisecond})
	ls := newListeners(t)
	quiet := make(chan struct{})
	var writers sync.WaitGroup
	for range 2 {
		p := ls.open(t, e, func(s *Spec) { s.Client.Codec = burnCodec{} })
		go io.Copy(io.Discard, p.backend)
		writers.Add(1)
		go func() {
			defer writers.Done()
			for {
				select {
				case <-quiet:
					return
				default:
					p.player.Write([]byte("work"))
				}
			}
		}()
	}
	waitPerLoop(t, e, []int64{1, 1}, "spill the full loop")
	close(quiet)
	writers.Wait()
	waitPerLoop(t, e, []int64{2, 0}, "merge back when quiet")
	if m := e.Stats().Moves; m < 2 {
		t.Fatalf("%d moves counted, want at least 2", m)
	}
}

func waitPerLoop(t *testing.T, e *Engine, want []int64, what string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !slices.Equal(e.Stats().PerLoop, want) {
		if time.Now().After(deadline) {
			st := e.Stats()
			t.Fatalf("%s: sessions per loop %v, busy %v, want %v", what, st.PerLoop, st.Busy, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
