package handover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// maxErrTexts is how many error lines a result keeps.
const maxErrTexts = 20

// errorLines counts moonbridge's lines at level error or above and keeps the first ones.
type errorLines struct {
	n    atomic.Int64
	mu   sync.Mutex
	kept []string
}

func (e *errorLines) add(l line) {
	e.n.Add(1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.kept) < maxErrTexts {
		e.kept = append(e.kept, fmt.Sprintf("%s (new_pid %d): %s", l.Message, l.NewPID, l.Error))
	}
}

func (e *errorLines) texts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.kept)
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
