package tracing

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A join whose spans do not fit in the queue is dropped whole and counted; what the queue
// holds is exported at shutdown.
func TestQueueDropsWhenFull(t *testing.T) {
	var mu sync.Mutex
	var got []*tracepb.Span
	q := newQueue(func(_ context.Context, spans []*tracepb.Span) error {
		mu.Lock()
		got = append(got, spans...)
		mu.Unlock()
		return nil
	}, 4, time.Second, zerolog.Nop())
	join := func(n int) []*tracepb.Span { return make([]*tracepb.Span, n) }
	q.add(join(2))
	q.add(join(3)) // 2+3 > 4: nothing runs yet to take the first
	q.add(join(2))
	go q.run()
	if err := q.shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	q.add(join(1)) // after shutdown
	if st := q.stats(); st != (Stats{Exported: 4, Dropped: 4}) {
		t.Errorf("stats %+v, want 4 exported and 4 dropped", st)
	}
	if len(got) != 4 {
		t.Errorf("the collector got %d spans, want 4", len(got))
	}
}

// A collector that takes the connection and never answers: Shutdown returns when its context
// ends, however long the export timeout, and leaves no goroutine behind.
func TestShutdownBoundedWhenCollectorHangs(t *testing.T) {
	testutil.CheckGoroutines(t)
	hung := make(chan net.Conn, 1)
	ln := testutil.Serve(t, func(c net.Conn) { hung <- c })
	tr, err := New(Config{Endpoint: "http://" + ln.Addr().String(), SampleRatio: 1, ExportTimeout: time.Hour}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tr.Start(time.Now()).End("relayed", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := tr.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("shutdown: %v, want its deadline", err)
	}
	(<-hung).Close()
	testutil.WaitFor(t, "the export to count as failed", func() bool { return tr.Stats().Failed == 1 })
}
