package tracing

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queue is the provider's span processor: the SDK's batch span processor (one export
// goroutine, batches of batchSize at least every flushEvery, each export bounded by the export
// timeout, never blocking the span's End) behind an admission that keeps the count exact.
//
// The batch processor drops a span when its queue is full and does not say how many. So a
// join asks admit for room for all its spans before it makes them: waiting counts the spans
// admitted and not yet handed to the exporter (queued in the batch processor, or in the batch
// it is building), and a join that would take it past size is dropped whole and counted here,
// before the batch processor sees it. Since waiting never exceeds size and the batch
// processor's queue holds size, the batch processor itself never drops. (A ForceFlush would
// put a marker in that queue, taking a place; nothing but a test calls it.)
type queue struct {
	sdktrace.SpanProcessor // the batch span processor

	size    int64
	mu      sync.RWMutex // admit holds it to read while the join's spans end; Shutdown to write
	closed  bool
	waiting atomic.Int64
	// dropped counts the spans of sampled joins that were refused: the queue held size spans
	// not yet handed to the exporter, or Shutdown had begun. It does not count joins left out
	// before (not sampled, server-list pings without status_pings).
	dropped atomic.Uint64
}

func newQueue(exporter sdktrace.SpanExporter, size int, timeout time.Duration) *queue {
	return &queue{size: int64(size), SpanProcessor: sdktrace.NewBatchSpanProcessor(exporter,
		sdktrace.WithMaxQueueSize(size), sdktrace.WithMaxExportBatchSize(min(size, batchSize)),
		sdktrace.WithBatchTimeout(flushEvery), sdktrace.WithExportTimeout(timeout))}
}

// admit runs end, which ends a join's n spans, when they fit; otherwise it counts them
// dropped. Shutdown waits for an admitted join's end, so that its spans reach the batch
// processor before it stops.
func (q *queue) admit(n int, end func()) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed || !q.reserve(int64(n)) {
		q.dropped.Add(uint64(n))
		return
	}
	end()
}

// reserve adds n to waiting unless that passes size.
func (q *queue) reserve(n int64) bool {
	for {
		w := q.waiting.Load()
		if w+n > q.size {
			return false
		}
		if q.waiting.CompareAndSwap(w, w+n) {
			return true
		}
	}
}

// handed notes that n spans left the queue for the exporter.
func (q *queue) handed(n int) { q.waiting.Add(-int64(n)) }

// Shutdown refuses further joins, then lets the batch processor export what it holds within
// ctx and shut the exporter down.
func (q *queue) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	return q.SpanProcessor.Shutdown(ctx)
}
