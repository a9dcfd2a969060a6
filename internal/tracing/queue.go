package tracing

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Export batches: at most batchSize spans in one request, and what is queued leaves at least
// every flushEvery.
const (
	batchSize  = 512
	flushEvery = time.Second
	// warnEvery spaces the log lines of a failing collector.
	warnEvery = 30 * time.Second
)

// queue holds ended joins' spans for the one goroutine (run) that exports them. add never
// waits: a join whose spans do not fit is dropped whole and counted.
type queue struct {
	export  func(context.Context, []*tracepb.Span) error
	size    int
	timeout time.Duration
	log     zerolog.Logger

	mu      sync.Mutex
	pending []*tracepb.Span
	closed  bool // shut down: add drops

	wake     chan struct{}        // pending has a full batch
	stop     chan context.Context // shutdown: export what is queued within the context, then end
	done     chan struct{}        // run has ended
	stopOnce sync.Once
	lastWarn time.Time // run's own

	exported, dropped, failed atomic.Uint64
}

func newQueue(export func(context.Context, []*tracepb.Span) error, size int, timeout time.Duration, log zerolog.Logger) *queue {
	return &queue{export: export, size: size, timeout: timeout, log: log, wake: make(chan struct{}, 1),
		stop: make(chan context.Context, 1), done: make(chan struct{})}
}

// add queues one join's spans, or drops and counts them all when they do not fit.
func (q *queue) add(spans []*tracepb.Span) {
	q.mu.Lock()
	fits := !q.closed && len(q.pending)+len(spans) <= q.size
	if fits {
		q.pending = append(q.pending, spans...)
	}
	full := len(q.pending) >= batchSize
	q.mu.Unlock()
	if !fits {
		q.dropped.Add(uint64(len(spans)))
		return
	}
	if full {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// run exports until shutdown: a full batch at once, the rest every flushEvery.
func (q *queue) run() {
	defer close(q.done)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	for {
		select {
		case <-q.wake:
			q.send(context.Background())
		case <-tick.C:
			q.send(context.Background())
		case ctx := <-q.stop:
			q.send(ctx)
			return
		}
	}
}

// send exports everything queued now, in batches.
func (q *queue) send(ctx context.Context) {
	q.mu.Lock()
	spans := q.pending
	q.pending = nil
	q.mu.Unlock()
	for len(spans) > 0 {
		n := min(len(spans), batchSize)
		q.sendBatch(ctx, spans[:n])
		spans = spans[n:]
	}
}

// sendBatch exports one batch within the export timeout (and ctx) and counts the result.
func (q *queue) sendBatch(ctx context.Context, batch []*tracepb.Span) {
	ctx, cancel := context.WithTimeout(ctx, q.timeout)
	err := q.export(ctx, batch)
	cancel()
	if err == nil {
		q.exported.Add(uint64(len(batch)))
		return
	}
	q.failed.Add(uint64(len(batch)))
	if now := time.Now(); now.Sub(q.lastWarn) >= warnEvery { // the counts have every failure
		q.lastWarn = now
		q.log.Warn().Err(err).Int("spans", len(batch)).Uint64("failed_total", q.failed.Load()).
			Msg("trace export failed; its spans are dropped")
	}
}

// shutdown exports what is queued within ctx and ends run; what is added later is dropped.
func (q *queue) shutdown(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.stopOnce.Do(func() { q.stop <- ctx })
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *queue) stats() Stats {
	return Stats{Exported: q.exported.Load(), Dropped: q.dropped.Load(), Failed: q.failed.Load()}
}
