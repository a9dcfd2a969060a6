package tracing

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A join whose spans do not fit in the queue is dropped whole and counted; what the queue
// holds is exported at shutdown.
func TestQueueDropsWhenFull(t *testing.T) {
	var mu sync.Mutex
	var got []sdktrace.ReadOnlySpan
	tr := newTracer(Config{QueueSize: 4, ExportTimeout: time.Second, SampleRatio: 1}, exporterFunc(
		func(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
			mu.Lock()
			got = append(got, spans...)
			mu.Unlock()
			return nil
		}), zerolog.Nop())
	join := func(n int) { // a sampled join of n spans: the join's and n-1 steps
		j := tr.Start(time.Now())
		for step := range Step(n - 1) {
			j.Step(step, time.Now(), nil)
		}
		j.End("relayed", nil)
	}
	join(2)
	join(3) // 2+3 > 4: the batch processor exports nothing before its batch is due (a second)
	join(2)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	join(1) // after shutdown
	if st := tr.Stats(); st != (Stats{Exported: 4, Dropped: 4}) {
		t.Errorf("stats %+v, want 4 exported and 4 dropped", st)
	}
	if len(got) != 4 {
		t.Errorf("the collector got %d spans, want 4", len(got))
	}
}

// While the collector is slow, joins beyond the queue are dropped and counted, never lost:
// every span ended is exported, dropped or failed, so the batch processor dropped none itself.
func TestQueueCountsEverySpan(t *testing.T) {
	release := make(chan struct{})
	tr := newTracer(Config{QueueSize: 8, ExportTimeout: time.Minute, SampleRatio: 1}, exporterFunc(
		func(context.Context, []sdktrace.ReadOnlySpan) error { <-release; return nil }), zerolog.Nop())
	const joins = 20
	for range joins {
		tr.Start(time.Now()).End("relayed", nil)
	}
	close(release)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// At most 8 spans wait in the queue and 8 in the export that hangs: at least 4 are dropped.
	if st := tr.Stats(); st.Exported+st.Dropped+st.Failed != joins || st.Dropped < joins-16 {
		t.Errorf("stats %+v: want all %d spans counted, at least %d dropped", st, joins, joins-16)
	}
}

// exporterFunc is an sdktrace.SpanExporter of one function.
type exporterFunc func(context.Context, []sdktrace.ReadOnlySpan) error

func (f exporterFunc) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	return f(ctx, spans)
}

func (exporterFunc) Shutdown(context.Context) error { return nil }

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
