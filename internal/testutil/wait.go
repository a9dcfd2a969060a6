package testutil

import (
	"runtime"
	"testing"
	"time"
)

// WaitBound is how long WaitFor and CheckGoroutines wait: long enough for a loaded machine
// under -race, so that it only turns a hang into a failure.
const WaitBound = 10 * time.Second

// Within polls cond, at first every millisecond and then less often, until it holds (true) or
// d has passed (false).
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(pause)
	}
	return true
}

// WaitFor polls cond until it holds, and fails the test with what (what it waited for) after
// WaitBound.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Within(WaitBound, cond) {
		t.Fatalf("gave up after %v waiting for %s", WaitBound, what)
	}
}

// CheckGoroutines fails the test if goroutines it started outlive it (by WaitBound). Call it
// first, so that its check runs after the test's other cleanups.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		if Within(WaitBound, func() bool { return runtime.NumGoroutine() <= before }) {
			return
		}
		buf := make([]byte, 1<<16)
		t.Errorf("goroutine leak: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	})
}
