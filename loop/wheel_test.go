package loop

import (
	"slices"
	"testing"
	"time"
)

func TestWheelFiresEachTimerOnceWhenDue(t *testing.T) {
	start := time.Unix(1000, 0)
	w := newWheel[int](10*time.Millisecond, start)
	timers := make([]timer[int], 4)
	after := []time.Duration{5 * time.Millisecond, 30 * time.Millisecond, 6 * time.Second, 30 * time.Millisecond}
	for i := range timers {
		timers[i].owner = i
		w.add(&timers[i], after[i], start)
	}
	w.remove(&timers[3])
	var fired []int
	record := func(tm *timer[int]) { fired = append(fired, tm.owner) }

	w.advance(start.Add(9*time.Millisecond), record)
	if len(fired) != 0 {
		t.Fatalf("fired %v before the first tick", fired)
	}
	w.advance(start.Add(10*time.Millisecond), record)
	w.advance(start.Add(35*time.Millisecond), record)
	if want := []int{0, 1}; !slices.Equal(fired, want) {
		t.Fatalf("fired %v by 35 ms, want %v", fired, want)
	}
	if d := w.wait(start.Add(35 * time.Millisecond)); d != 5*time.Millisecond {
		t.Errorf("wait = %v, want 5ms to the next tick", d)
	}
	// 6 s is more than a revolution (5.12 s): the timer passes its slot once without firing.
	w.advance(start.Add(5990*time.Millisecond), record)
	if len(fired) != 2 {
		t.Fatalf("the 6 s timer fired early: %v", fired)
	}
	w.advance(start.Add(6*time.Second), record)
	if want := []int{0, 1, 2}; !slices.Equal(fired, want) || w.count != 0 {
		t.Fatalf("fired %v, %d armed; want %v and none", fired, w.count, want)
	}
	if d := w.wait(start.Add(7 * time.Second)); d != -1 {
		t.Errorf("wait with no timer = %v, want -1", d)
	}
}

// TestWheelFireMayRearmAndRemove: a fired timer re-arms itself and disarms another due in the
// same tick, as a session's keepalive does when it closes the session.
func TestWheelFireMayRearmAndRemove(t *testing.T) {
	start := time.Unix(0, 0)
	w := newWheel[int](time.Millisecond, start)
	var a, b timer[int]
	a.owner, b.owner = 1, 2
	w.add(&a, time.Millisecond, start)
	w.add(&b, time.Millisecond, start)
	fires := 0
	w.advance(start.Add(time.Millisecond), func(tm *timer[int]) {
		fires++
		w.remove(&b)
		w.add(tm, time.Millisecond, start.Add(time.Millisecond))
	})
	if fires != 1 || !a.armed() || b.armed() || w.count != 1 {
		t.Fatalf("fires %d, a armed %v, b armed %v, count %d; want 1, true, false, 1", fires, a.armed(), b.armed(), w.count)
	}
	w.advance(start.Add(3*time.Millisecond), func(*timer[int]) { fires++ })
	if fires != 2 {
		t.Fatalf("the re-armed timer fired %d times in total, want 2", fires)
	}
}

// TestWheelCatchesUpAfterALongSleep: a loop busy (or asleep) for longer than a revolution fires
// everything due on one pass.
func TestWheelCatchesUpAfterALongSleep(t *testing.T) {
	start := time.Unix(0, 0)
	w := newWheel[int](time.Millisecond, start)
	timers := make([]timer[int], 100)
	for i := range timers {
		w.add(&timers[i], time.Duration(i*7+1)*time.Millisecond, start)
	}
	fired := 0
	w.advance(start.Add(time.Hour), func(*timer[int]) { fired++ })
	if fired != len(timers) || w.count != 0 {
		t.Fatalf("fired %d of %d, %d still armed", fired, len(timers), w.count)
	}
}

// TestWheelArmedAfterIdleCountsFromNow: a timer armed on a wheel that sat empty for an hour
// fires after its own delay, not at the next advance.
func TestWheelArmedAfterIdleCountsFromNow(t *testing.T) {
	start := time.Unix(0, 0)
	w := newWheel[int](time.Millisecond, start)
	later := start.Add(time.Hour)
	var tm timer[int]
	w.add(&tm, 50*time.Millisecond, later)
	fired := 0
	w.advance(later.Add(49*time.Millisecond), func(*timer[int]) { fired++ })
	if fired != 0 {
		t.Fatal("a timer armed after an idle hour fired before its delay")
	}
	w.advance(later.Add(50*time.Millisecond), func(*timer[int]) { fired++ })
	if fired != 1 {
		t.Fatalf("fired %d times at its delay, want 1", fired)
	}
}

// TestWheelZeroAllocs: arming, firing and re-arming allocate nothing.
func TestWheelZeroAllocs(t *testing.T) {
	start := time.Unix(0, 0)
	w := newWheel[int](time.Millisecond, start)
	var tm timer[int]
	now := start
	fire := func(x *timer[int]) { w.add(x, 3*time.Millisecond, now) }
	w.add(&tm, time.Millisecond, now)
	if a := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Millisecond)
		w.advance(now, fire)
	}); a != 0 {
		t.Errorf("%v allocations per tick", a)
	}
}
