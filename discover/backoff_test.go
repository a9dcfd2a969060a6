package discover

import (
	"context"
	"testing"
	"time"
)

func TestBackoffDoublesToMaxAndResets(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Wait returns at once; the pauses are what is checked
	b := NewBackoff(time.Second, 3*time.Second)
	var got []time.Duration
	for range 4 {
		got = append(got, b.Next())
		b.Wait(ctx)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pauses %v, want %v", got, want)
		}
	}
	if b.Reset(); b.Next() != time.Second {
		t.Errorf("after Reset the pause is %v, want 1s", b.Next())
	}
}
