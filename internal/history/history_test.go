package history

import (
	"slices"
	"sync"
	"testing"
)

// A ring keeps the last n values added, oldest first, and never more.
func TestRingKeepsTheLastValuesOldestFirst(t *testing.T) {
	r := NewRing[int](3)
	if got := r.All(); len(got) != 0 {
		t.Fatalf("a new ring holds %v", got)
	}
	r.Add(1)
	r.Add(2)
	if got := r.All(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("after 1, 2: %v", got)
	}
	for v := 3; v <= 7; v++ {
		r.Add(v)
	}
	if got := r.All(); !slices.Equal(got, []int{5, 6, 7}) {
		t.Errorf("after 1..7 in a ring of 3: %v, want [5 6 7]", got)
	}
	got := r.All()
	got[0] = 99
	if again := r.All(); again[0] != 5 {
		t.Errorf("All shares its slice with the ring: %v", again)
	}
}

func TestRingOfNoneKeepsOne(t *testing.T) {
	r := NewRing[string](0)
	r.Add("a")
	r.Add("b")
	if got := r.All(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("a ring made for 0 holds %v, want the last value", got)
	}
}

// Adds and reads from several goroutines (go test -race).
func TestRingIsSafeForConcurrentUse(t *testing.T) {
	r := NewRing[int](10)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				r.Add(g*100 + i)
				if n := len(r.All()); n > 10 {
					t.Errorf("the ring holds %d values", n)
				}
			}
		})
	}
	wg.Wait()
	if n := len(r.All()); n != 10 {
		t.Errorf("after 400 adds the ring holds %d, want 10", n)
	}
}
