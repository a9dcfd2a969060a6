package flood

import (
	"context"
	"sync"
	"time"
)

// aheadSlack is how far ahead of schedule the pacer may be before it sleeps: sleeping for each
// of 20,000 connections a second would cost more than the connections.
const aheadSlack = time.Millisecond

// Pacer starts connections at Rate a second (0: as fast as MaxOpen allows) for Duration, with
// at most MaxOpen running at once. A start that has to wait for a free slot is late; the
// achieved rate says so.
type Pacer struct {
	Rate     float64
	Duration time.Duration
	MaxOpen  int
}

// Paced is what a pacer did.
type Paced struct {
	Started uint64
	Window  time.Duration // from the first start to the pacer's stop: at most Duration
}

// Rate is the achieved rate of starts a second.
func (p Paced) Rate() float64 {
	if p.Window <= 0 {
		return 0
	}
	return float64(p.Started) / p.Window.Seconds()
}

// Run calls conn(i) in its own goroutine for each start, and returns when the duration is over
// and every connection returned. conn should return when ctx ends.
func (p Pacer) Run(ctx context.Context, conn func(ctx context.Context, i uint64)) Paced {
	slots := make(chan struct{}, max(p.MaxOpen, 1))
	var wg sync.WaitGroup
	t0 := time.Now()
	end := t0.Add(p.Duration)
	var i uint64
	for ; ctx.Err() == nil; i++ {
		due := t0
		if p.Rate > 0 {
			due = t0.Add(time.Duration(float64(i) / p.Rate * float64(time.Second)))
		}
		if !due.Before(end) || !waitUntil(ctx, due) || !p.acquire(ctx, slots, end) {
			break
		}
		n := i // i moves on before the goroutine runs
		wg.Go(func() {
			defer func() { <-slots }()
			conn(ctx, n)
		})
	}
	window := min(time.Since(t0), p.Duration)
	wg.Wait()
	return Paced{Started: i, Window: window}
}

// acquire takes a slot; false when ctx or the duration ends first.
func (p Pacer) acquire(ctx context.Context, slots chan struct{}, end time.Time) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	timer := time.NewTimer(time.Until(end))
	defer timer.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}

// waitUntil sleeps until t when it is more than aheadSlack away; false if ctx ended.
func waitUntil(ctx context.Context, t time.Time) bool {
	if time.Until(t) > aheadSlack {
		wctx, cancel := context.WithDeadline(ctx, t)
		defer cancel()
		<-wctx.Done()
	}
	return ctx.Err() == nil
}

// Sleep waits for d; false if ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool { return waitUntil(ctx, time.Now().Add(d)) }
