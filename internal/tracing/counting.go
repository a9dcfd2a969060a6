package tracing

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// warnEvery spaces the log lines of a failing collector.
const warnEvery = 30 * time.Second

// countingExporter is the exporter the batch processor calls: it counts what the exporter
// behind it did with each batch and tells the queue the batch has left it.
type countingExporter struct {
	next   sdktrace.SpanExporter
	handed func(n int) // the queue's
	log    zerolog.Logger

	exported atomic.Uint64 // spans of batches next took
	failed   atomic.Uint64 // spans of batches next failed (an error, or the timeout)
	lastWarn atomic.Int64  // unix nanoseconds of the last warning
}

// ExportSpans exports spans through next and counts them. It answers nil: the batch processor
// does nothing with an error but hand it to OpenTelemetry's global handler, which would print
// it outside the process's log; it is counted and logged here instead.
func (e *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.handed(len(spans))
	err := e.next.ExportSpans(ctx, spans)
	if err == nil {
		e.exported.Add(uint64(len(spans)))
		return nil
	}
	failed := e.failed.Add(uint64(len(spans)))
	now := time.Now().UnixNano()
	if last := e.lastWarn.Load(); now-last >= int64(warnEvery) && e.lastWarn.CompareAndSwap(last, now) {
		e.log.Warn().Err(err).Int("spans", len(spans)).Uint64("failed_total", failed).
			Msg("trace export failed; its spans are dropped")
	}
	return nil
}

func (e *countingExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }
