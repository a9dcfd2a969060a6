package discover

import (
	"context"
	"time"
)

// Backoff is a source's pause before it tries its runtime again: it doubles from min to max
// while attempts fail, and is min again once the source calls Reset (the runtime answered).
type Backoff struct {
	min, max, next time.Duration
}

// NewBackoff starts at min.
func NewBackoff(min, max time.Duration) Backoff { return Backoff{min: min, max: max, next: min} }

// Next is the pause the next Wait makes.
func (b *Backoff) Next() time.Duration { return b.next }

// Reset makes the next pause min again.
func (b *Backoff) Reset() { b.next = b.min }

// Wait pauses for Next, or until ctx ends, and doubles the pause after.
func (b *Backoff) Wait(ctx context.Context) {
	t := time.NewTimer(b.next)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	b.next = min(2*b.next, b.max)
}
