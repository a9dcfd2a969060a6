package handover

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// errorLines counts moonbridge's lines at level error or above and keeps the first.
type errorLines struct {
	n      atomic.Int64
	mu     sync.Mutex
	firstL string
}

func (e *errorLines) add(l line) {
	e.n.Add(1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.firstL == "" {
		e.firstL = l.Message + ": " + l.Error
	}
}

func (e *errorLines) first() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.firstL
}

func trips(h *stats.Histogram) Trips {
	return Trips{N: h.Count(), P99Ms: ms(h.Percentile(99)), LongestMs: ms(h.Percentile(100))}
}

// waitExits waits up to wait for the old processes to exit and records when each did.
func waitExits(ctx context.Context, ups []Upgrade, wait time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for i := range ups {
		w := ups[i].exit
		if w == nil {
			continue
		}
		select {
		case <-w.done:
		case <-ctx.Done():
		}
		select {
		case <-w.done:
			if w.seen {
				ups[i].ExitS = w.after.Seconds()
			}
		default:
		}
	}
}

// stopAll stops every process of the run that still runs, the newest first.
func stopAll(pids []int) error {
	var err error
	for i := len(pids) - 1; i >= 0; i-- {
		err = errors.Join(err, stop(pids[i]))
	}
	return err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
