package flood

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestPacerKeepsRateAndStops(t *testing.T) {
	var n atomic.Int64
	start := time.Now()
	p := Pacer{Rate: 500, Duration: 400 * time.Millisecond, MaxOpen: 100}.Run(context.Background(), func(context.Context, uint64) { n.Add(1) })
	took := time.Since(start)
	if p.Started != uint64(n.Load()) || p.Started != 200 {
		t.Errorf("started %d (ran %d), want 500/s x 0.4 s = 200", p.Started, n.Load())
	}
	if took > 2*time.Second || p.Rate() < 400 {
		t.Errorf("took %v, rate %.0f/s", took, p.Rate())
	}
}

func TestPacerBoundsOpenConnections(t *testing.T) {
	var open, most atomic.Int64
	p := Pacer{Rate: 0, Duration: 200 * time.Millisecond, MaxOpen: 8}.Run(context.Background(), func(ctx context.Context, _ uint64) {
		now := open.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		open.Add(-1)
	})
	if most.Load() > 8 || most.Load() < 2 {
		t.Errorf("at most %d open at once, want up to 8", most.Load())
	}
	// 8 slots, 20 ms each, 200 ms: about 80 starts; never more than the slots allow.
	if p.Started > 8*(200/20+1) || p.Started < 8 {
		t.Errorf("started %d", p.Started)
	}
}

func TestPacerEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	Pacer{Rate: 10, Duration: time.Hour, MaxOpen: 1}.Run(ctx, func(context.Context, uint64) {})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ran %v after its context ended", d)
	}
}
