package pace

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/traffic"
)

// every is a schedule of one byte every d.
type every struct {
	d    time.Duration
	next time.Duration
}

func (e *every) Next(dst []byte) traffic.Event {
	e.next += e.d
	return traffic.Event{At: e.next, Bytes: append(dst, 1)}
}

func TestRunWritesOnScheduleUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	var writes []time.Duration
	var lates int
	err := Run(ctx, start, &every{d: 10 * time.Millisecond}, func(traffic.Event) error {
		writes = append(writes, time.Since(start))
		if len(writes) == 5 {
			cancel()
		}
		return nil
	}, func(time.Duration) { lates++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(writes) != 5 || lates != 5 {
		t.Fatalf("%d writes, %d lateness samples; want 5 of each, then the end", len(writes), lates)
	}
	// A loaded machine may run a timer late, never early.
	for i, at := range writes {
		if due := time.Duration(i+1) * 10 * time.Millisecond; at < due {
			t.Errorf("write %d at %v, before its due time %v", i, at, due)
		}
	}
}

func TestRunReportsLatenessAndWriteErrors(t *testing.T) {
	var late time.Duration
	boom := errors.New("boom")
	// Started a second ago: the first event was due 990 ms ago.
	err := Run(context.Background(), time.Now().Add(-time.Second), &every{d: 10 * time.Millisecond},
		func(traffic.Event) error { return boom }, func(d time.Duration) { late = d })
	if !errors.Is(err, boom) || late < 990*time.Millisecond {
		t.Errorf("err %v, lateness %v; want boom and at least 990 ms", err, late)
	}
}
