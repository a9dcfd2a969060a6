package auth

import (
	"slices"
	"time"
)

// The meter's bucket and queue; every method here runs under m.mu.

// burst is how many tokens the bucket holds at most: 1 in strict mode.
func (m *Meter) burst() int {
	if m.strict {
		return 1
	}
	return max(m.set.Burst, 1)
}

// refill adds the tokens the rate gave since m.last.
func (m *Meter) refill(now time.Time) {
	if m.set.Rate <= 0 || !now.After(m.last) {
		return
	}
	m.tokens = min(float64(m.burst()), m.tokens+now.Sub(m.last).Seconds()*m.set.Rate)
	m.last = now
}

// ready says whether a request may go now.
func (m *Meter) ready(now time.Time) bool {
	return !now.Before(m.pausedUntil) && (m.set.Rate <= 0 || m.tokens >= 1)
}

// take spends a token on a request.
func (m *Meter) take() {
	if m.set.Rate > 0 {
		m.tokens--
	}
	m.counts.sent++
}

// admit says whether one more player may wait: a place in the queue, and a turn within MaxWait.
func (m *Meter) admit(now time.Time) *MeterError {
	if len(m.queue) >= m.set.Queue {
		return &MeterError{Reason: MeterQueueFull}
	}
	if pause := m.pausedUntil.Sub(now); pause > m.set.MaxWait {
		return &MeterError{Reason: MeterBackoff, Wait: pause}
	}
	if wait := m.waitFor(len(m.queue)+1, now); wait > m.set.MaxWait {
		return &MeterError{Reason: MeterWait, Wait: wait}
	}
	return nil
}

// waitFor is how long until the n-th request from now may go.
func (m *Meter) waitFor(n int, now time.Time) time.Duration {
	wait := max(m.pausedUntil.Sub(now), m.last.Sub(now), 0)
	if need := float64(n) - m.tokens; m.set.Rate > 0 && need > 0 {
		wait += time.Duration(need / m.set.Rate * float64(time.Second))
	}
	return wait
}

// arm sets the timer for the queue's head (none when nobody waits).
func (m *Meter) arm(now time.Time) {
	if m.timer != nil {
		m.timer.Stop()
	}
	if len(m.queue) == 0 {
		return
	}
	m.timer = time.AfterFunc(max(m.waitFor(1, now), time.Millisecond), m.dispatch)
}

// dispatch gives the waiting players the turns that are due, in order, and sets the timer for
// the next.
func (m *Meter) dispatch() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.refill(now)
	for len(m.queue) > 0 && m.ready(now) {
		w := m.queue[0]
		m.queue = m.queue[1:]
		m.take()
		w.epoch = m.epoch
		close(w.granted)
	}
	m.arm(now)
}

// leave takes w out of the queue; false when it is not there (it was given its turn).
func (m *Meter) leave(w *meterWaiter) bool {
	i := slices.Index(m.queue, w)
	if i < 0 {
		return false
	}
	m.queue = slices.Delete(m.queue, i, i+1)
	return true
}
