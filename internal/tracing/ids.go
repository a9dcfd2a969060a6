package tracing

import (
	"context"
	"encoding/binary"
	"math/rand/v2"

	"go.opentelemetry.io/otel/trace"
)

// joinIDs is the provider's id generator. A join draws its trace id when it starts, since the
// sampler decides by it then (Tracer.Start); the join's span, made when it ends, takes that id
// from the context (withTraceID). Span ids are random.
type joinIDs struct{}

type traceIDKey struct{}

// withTraceID is ctx carrying the trace id of the root span about to start in it.
func withTraceID(ctx context.Context, id trace.TraceID) context.Context {
	return context.WithValue(ctx, traceIDKey{}, id)
}

func (joinIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	id, ok := ctx.Value(traceIDKey{}).(trace.TraceID)
	if !ok {
		id = newTraceID()
	}
	return id, newSpanID()
}

func (joinIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return newSpanID() }

// newTraceID and newSpanID are random ids, never all zero (which means none).
func newTraceID() (id trace.TraceID) {
	for !id.IsValid() {
		binary.LittleEndian.PutUint64(id[:8], rand.Uint64())
		binary.LittleEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() (id trace.SpanID) {
	for !id.IsValid() {
		binary.LittleEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}
