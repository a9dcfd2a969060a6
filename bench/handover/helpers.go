package handover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// maxErrTexts is how many error lines a result keeps.
const maxErrTexts = 20

// runLog is what the harness keeps of moonbridge's lines besides the hand-overs': the lines at
// level error or above (counted, the first kept) and every process an upgrade started, so that
// the run stops them all, also one whose upgrade the harness did not see through.
type runLog struct {
	errors  atomic.Int64
	mu      sync.Mutex
	kept    []string
	started []int
}

func (g *runLog) add(l line) {
	isErr := l.Level == "error" || l.Level == "fatal" || l.Level == "panic"
	isStart := strings.HasPrefix(l.Message, msgStarted) && l.NewPID > 0
	if !isErr && !isStart {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if isStart {
		g.started = append(g.started, l.NewPID)
	}
	if isErr {
		g.errors.Add(1)
		if len(g.kept) < maxErrTexts {
			g.kept = append(g.kept, fmt.Sprintf("%s (new_pid %d): %s", l.Message, l.NewPID, l.Error))
		}
	}
}

func (g *runLog) texts() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.kept)
}

// pids is first and every process an upgrade started, in the order they started.
func (g *runLog) pids(first int) []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int{first}, g.started...)
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

// stopAll stops every process of the run (started with args) that still runs, the newest first.
func stopAll(pids []int, args []string) error {
	var err error
	for i := len(pids) - 1; i >= 0; i-- {
		err = errors.Join(err, stop(pids[i], args))
	}
	return err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
