// Package history keeps a bounded recent past in memory: a ring of the last n values, the
// oldest overwritten by the newest. The dashboard keeps its graphs' samples in one (an hour at
// one sample per 10 s is 360 values), so that what it holds never grows with uptime.
package history

import "sync"

// Ring holds the last values added, at most its size; it is safe for concurrent use.
type Ring[T any] struct {
	mu   sync.Mutex
	buf  []T
	next int  // where the next value goes
	full bool // every slot holds a value: next is also the oldest
}

// NewRing is an empty ring of n values (at least one).
func NewRing[T any](n int) *Ring[T] {
	return &Ring[T]{buf: make([]T, max(n, 1))}
}

// Add puts v in the ring, in place of the oldest value once the ring is full.
func (r *Ring[T]) Add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf[r.next] = v
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

// All is a copy of the values held, oldest first.
func (r *Ring[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]T(nil), r.buf[:r.next]...)
	}
	return append(append(make([]T, 0, len(r.buf)), r.buf[r.next:]...), r.buf[:r.next]...)
}
