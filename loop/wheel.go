package loop

import "time"

// wheelSlots is the wheel's size: with the default 100 ms tick a revolution is 51.2 s, longer
// than the default keepalive half-interval, so most timers fire on their first pass.
const wheelSlots = 512

// timer is an entry of a wheel, embedded in what it times (no allocation to arm it).
type timer[T any] struct {
	prev, next *timer[T]
	due        uint64 // the wheel tick at which it fires
	owner      T
}

func (t *timer[T]) armed() bool { return t.next != nil }

// wheel is a hashed timing wheel: a timer sits in slot due%wheelSlots and fires when the wheel
// reaches due, however many revolutions away that is. Adding and removing are O(1); a tick
// visits one slot. Used by one goroutine (its loop).
type wheel[T any] struct {
	slots  [wheelSlots]timer[T] // list heads
	firing timer[T]             // the head of the slot being fired, detached
	res    time.Duration
	start  time.Time
	tick   uint64 // the last tick processed
	count  int
}

func newWheel[T any](res time.Duration, now time.Time) *wheel[T] {
	w := &wheel[T]{res: res, start: now}
	for i := range w.slots {
		w.slots[i].prev, w.slots[i].next = &w.slots[i], &w.slots[i]
	}
	w.firing.prev, w.firing.next = &w.firing, &w.firing
	return w
}

// add arms t to fire after d (at least one tick from now). An empty wheel is not advanced, so
// it first catches up with now: else a timer armed after a long idle spell would count from
// the last tick processed and fire at once.
func (w *wheel[T]) add(t *timer[T], d time.Duration, now time.Time) {
	if t.armed() {
		w.remove(t)
	}
	if w.count == 0 {
		w.tick = max(w.tick, w.tickAt(now))
	}
	ticks := uint64((d + w.res - 1) / w.res)
	t.due = w.tick + max(ticks, 1)
	w.link(&w.slots[t.due%wheelSlots], t)
	w.count++
}

func (w *wheel[T]) link(head, t *timer[T]) {
	t.prev, t.next = head.prev, head
	head.prev.next = t
	head.prev = t
}

// remove disarms t; a timer that is not armed is left alone.
func (w *wheel[T]) remove(t *timer[T]) {
	if !t.armed() {
		return
	}
	t.prev.next, t.next.prev = t.next, t.prev
	t.prev, t.next = nil, nil
	w.count--
}

// left is how long until t fires, as of now; -1 if t is not armed.
func (w *wheel[T]) left(t *timer[T], now time.Time) time.Duration {
	if !t.armed() {
		return -1
	}
	return max(w.start.Add(time.Duration(t.due)*w.res).Sub(now), 0)
}

// wait is how long until the next tick is due, for epoll_wait's timeout (-1: no timer armed).
func (w *wheel[T]) wait(now time.Time) time.Duration {
	if w.count == 0 {
		return -1
	}
	return max(w.start.Add(time.Duration(w.tick+1)*w.res).Sub(now), 0)
}

func (w *wheel[T]) tickAt(now time.Time) uint64 { return uint64(now.Sub(w.start) / w.res) }

// advance processes every tick up to now and fires the due timers, disarmed, through fire,
// which may add and remove any timer, the one it was given included.
func (w *wheel[T]) advance(now time.Time, fire func(*timer[T])) {
	target := w.tickAt(now)
	if w.count == 0 || target < w.tick+1 {
		w.tick = max(w.tick, target)
		return
	}
	if target-w.tick > wheelSlots { // asleep for a revolution or more: one pass visits every slot
		w.tick = target - wheelSlots
	}
	for w.tick < target {
		w.tick++
		w.fireSlot(&w.slots[w.tick%wheelSlots], fire)
	}
}

// fireSlot detaches the slot's list so that fire may change any list, then fires what is due
// and puts back what is due on a later revolution.
func (w *wheel[T]) fireSlot(head *timer[T], fire func(*timer[T])) {
	if head.next == head {
		return
	}
	f := &w.firing
	f.next, f.prev = head.next, head.prev
	f.next.prev, f.prev.next = f, f
	head.next, head.prev = head, head
	for f.next != f {
		t := f.next
		w.remove(t)
		if t.due > w.tick {
			w.link(head, t)
			w.count++
			continue
		}
		fire(t)
	}
}
