// Package upgrade measures connection setup: workers open sessions one after another, each
// dialed, (for ws and wss) upgraded, logged in to the fake backend's login answer and closed,
// while the relay's process is sampled before and after a fixed window. With an access token on
// the dialer this is the upgrade rate a relay sustains with tokens required
// (bench/results/2026-11-30-access-upgrade-rate.md).
package upgrade

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/procfs"
)

// Config is the workload of one phase.
type Config struct {
	Connections int           // workers, each opening one session at a time
	Warmup      time.Duration // upgrades before the window, not counted
	Duration    time.Duration // the measured window
}

// Result is what one phase measured. PID 0 means no process was sampled (the direct phase).
type Result struct {
	PID      int
	Upgrades int64 // sessions established and closed within the window
	Elapsed  time.Duration
	Setup    []time.Duration // sorted: dial to login answer, one per counted upgrade
	Before   procfs.Sample
	After    procfs.Sample
}

// ErrNoUpgrade is a run stopped before any session was established within the window.
var ErrNoUpgrade = errors.New("upgrade: no session was established within the window")

// window is when the measurement runs: an upgrade counts when it ends within it. It opens at
// start and closes at the first moment after its nominal end at which at least one upgrade has
// ended within it, so that a machine too slow to finish an upgrade in the nominal window (a
// short window on a loaded machine) measures a longer one instead of nothing; Elapsed is the
// window's real length.
type window struct {
	start, end time.Time     // end: the nominal end
	counted    chan struct{} // closed when the first upgrade ends within the window
	once       sync.Once
	closedAt   atomic.Pointer[time.Time] // set by the sampler when the window closes
}

func newWindow(start time.Time, d time.Duration) *window {
	return &window{start: start, end: start.Add(d), counted: make(chan struct{})}
}

// record says whether an upgrade that ended at t counts, and whether its worker should stop.
func (w *window) record(t time.Time) (counts, stop bool) {
	if closed := w.closedAt.Load(); closed != nil {
		return !t.Before(w.start) && !t.After(*closed), t.After(*closed)
	}
	if t.Before(w.start) {
		return false, false
	}
	w.once.Do(func() { close(w.counted) })
	return true, false
}

// Run loops upgrades through d with cfg.Connections workers for the warmup and the window,
// sampling pid (0 for none) at the window's edges. The first failed upgrade stops the run and
// is its error.
func Run(ctx context.Context, d client.Dialer, cfg Config, pid int) (Result, error) {
	res := Result{PID: pid}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := newWindow(time.Now().Add(cfg.Warmup), cfg.Duration)
	setups := make([][]time.Duration, cfg.Connections)
	var wg sync.WaitGroup
	for i := range cfg.Connections {
		wg.Go(func() {
			var err error
			if setups[i], err = loop(ctx, d, w, workerName(i)); err != nil {
				cancel(err)
			}
		})
	}
	if err := sample(ctx, w, pid, &res); err != nil {
		cancel(err)
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil { // a failed upgrade or sample, or ctx's end
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			select {
			case <-w.counted:
			default:
				return res, fmt.Errorf("%w: %w", ErrNoUpgrade, err)
			}
		}
		return res, err
	}
	res.Setup = slices.Sorted(slices.Values(slices.Concat(setups...)))
	res.Upgrades = int64(len(res.Setup))
	return res, nil
}

// sample takes the relay's process at the window's start and when it closes: at its nominal
// end, or later, once the first upgrade has ended within it. The workers stop on their own
// after it closes.
func sample(ctx context.Context, w *window, pid int, res *Result) error {
	if err := sleepUntil(ctx, w.start); err != nil {
		return err
	}
	var err error
	if res.Before, err = procfs.Take(pid); err != nil {
		return err
	}
	began := time.Now()
	if err := sleepUntil(ctx, w.end); err != nil {
		return err
	}
	select {
	case <-w.counted:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	closed := time.Now()
	w.closedAt.Store(&closed)
	res.Elapsed = closed.Sub(began)
	res.After, err = procfs.Take(pid)
	return err
}

// loop is one worker: upgrades until the window closes, keeping the setup times of those that
// ended within it.
func loop(ctx context.Context, d client.Dialer, w *window, name string) ([]time.Duration, error) {
	var setups []time.Duration
	for {
		setup, err := client.Establish(ctx, d, name)
		if err != nil {
			if ctx.Err() != nil {
				return setups, nil // another worker failed, or the run was stopped: its error tells
			}
			return setups, fmt.Errorf("upgrade of %s: %w", name, err)
		}
		counts, stop := w.record(time.Now())
		if counts {
			setups = append(setups, setup)
		}
		if stop {
			return setups, nil
		}
	}
}

func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// workerName is a distinct player name per worker, within the 16 bytes vanilla allows.
func workerName(i int) string { return fmt.Sprintf("mbupgrade%05d", i) }
