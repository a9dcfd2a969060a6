package tracing

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Export batches: at most batchSize spans in one request, and what is queued leaves at least
// every flushEvery.
const (
	batchSize  = 512
	flushEvery = time.Second
	// warnEvery spaces the log lines of a failing collector.
	warnEvery = 30 * time.Second
)

// queue is the span processor: ended spans wait in a bounded channel for the one goroutine
// (run) that exports them. OnEnd never waits: a full channel drops the span and counts it. It
// stands in for the SDK's batch processor, which drops as well but does not say how many.
type queue struct {
	exporter sdktrace.SpanExporter
	spans    chan sdktrace.ReadOnlySpan
	timeout  time.Duration
	log      zerolog.Logger

	flushes  chan chan struct{}   // ForceFlush: export what is queued, then answer
	stop     chan context.Context // Shutdown: export what is queued within the context, then end
	done     chan struct{}        // run has ended
	stopOnce sync.Once
	lastWarn time.Time // run's own

	exported, dropped, failed atomic.Uint64
}

func newQueue(exporter sdktrace.SpanExporter, size int, timeout time.Duration, log zerolog.Logger) *queue {
	return &queue{exporter: exporter, spans: make(chan sdktrace.ReadOnlySpan, size), timeout: timeout, log: log,
		flushes: make(chan chan struct{}), stop: make(chan context.Context, 1), done: make(chan struct{})}
}

func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a span, or drops and counts it when the queue is full.
func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	select {
	case q.spans <- s:
	default:
		q.dropped.Add(1)
	}
}

// run exports until Shutdown: a full batch at once, the rest every flushEvery.
func (q *queue) run() {
	defer close(q.done)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	batch := make([]sdktrace.ReadOnlySpan, 0, batchSize)
	for {
		select {
		case s := <-q.spans:
			if batch = append(batch, s); len(batch) == batchSize {
				batch = q.export(context.Background(), batch)
			}
		case <-tick.C:
			batch = q.export(context.Background(), batch)
		case reply := <-q.flushes:
			batch = q.drain(context.Background(), batch)
			close(reply)
		case ctx := <-q.stop:
			q.drain(ctx, batch)
			return
		}
	}
}

// drain exports batch and everything queued now, in batches.
func (q *queue) drain(ctx context.Context, batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	for {
		select {
		case s := <-q.spans:
			if batch = append(batch, s); len(batch) == batchSize {
				batch = q.export(ctx, batch)
			}
		default:
			return q.export(ctx, batch)
		}
	}
}

// export sends batch within the export timeout (and ctx) and counts the result; it returns
// the batch emptied for reuse.
func (q *queue) export(ctx context.Context, batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	if len(batch) == 0 {
		return batch
	}
	ctx, cancel := context.WithTimeout(ctx, q.timeout)
	err := q.exporter.ExportSpans(ctx, batch)
	cancel()
	if err == nil {
		q.exported.Add(uint64(len(batch)))
	} else {
		q.failed.Add(uint64(len(batch)))
		q.warn(err, len(batch))
	}
	clear(batch) // the spans are garbage now
	return batch[:0]
}

// warn logs a failed export, at most once per warnEvery; the counts have every one.
func (q *queue) warn(err error, spans int) {
	if now := time.Now(); now.Sub(q.lastWarn) >= warnEvery {
		q.lastWarn = now
		q.log.Warn().Err(err).Int("spans", spans).Uint64("failed_total", q.failed.Load()).
			Msg("trace export failed; its spans are dropped")
	}
}

// ForceFlush exports what is queued now, waiting at most until ctx ends.
func (q *queue) ForceFlush(ctx context.Context) error {
	reply := make(chan struct{})
	select {
	case q.flushes <- reply:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-reply:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued within ctx, then stops the exporter.
func (q *queue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() { q.stop <- ctx })
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exporter.Shutdown(ctx)
}

func (q *queue) stats() Stats {
	return Stats{Exported: q.exported.Load(), Dropped: q.dropped.Load(), Failed: q.failed.Load()}
}
