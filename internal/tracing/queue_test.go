package tracing

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A full queue drops what comes and counts it; what it holds is exported at a flush.
func TestQueueDropsWhenFull(t *testing.T) {
	exporter := tracetest.NewInMemoryExporter()
	q := newQueue(exporter, 2, time.Second, zerolog.Nop())
	for range 5 {
		q.OnEnd(tracetest.SpanStub{Name: "step"}.Snapshot()) // nothing takes them yet
	}
	go q.run()
	if err := q.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := q.stats(); st != (Stats{Exported: 2, Dropped: 3}) {
		t.Errorf("stats %+v, want 2 exported and 3 dropped", st)
	}
	if got := len(exporter.GetSpans()); got != 2 {
		t.Errorf("the exporter got %d spans, want 2", got)
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
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
