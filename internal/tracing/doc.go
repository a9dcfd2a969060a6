// Package tracing records the join of a player's connection (accept, TLS handshake, WebSocket
// upgrade, route, login and its session-server request, backend dial, the first bytes to the
// backend) as OpenTelemetry spans and exports them over OTLP/HTTP (protobuf). The relay holds a
// *Tracer and a *Join per connection and calls their methods, which do nothing on nil: tracing
// off costs a nil check per step.
//
// The spans are the OpenTelemetry SDK's (go.opentelemetry.io/otel/sdk/trace): a
// TracerProvider with the sampler ParentBased(TraceIDRatioBased(sample_ratio)), a resource of
// service.name and service.version, and the SDK's BatchSpanProcessor behind an admission that
// bounds and counts its queue (queue.go). The exporter is this package's own
// sdktrace.SpanExporter (exporter.go, convert.go): it turns the SDK's spans into OTLP's
// protobuf types (go.opentelemetry.io/proto/otlp/trace/v1) and posts them. The SDK's
// otlptracehttp exporter was measured in its place (v1.47.0, CGO_ENABLED=0 go build of
// cmd/moonbridge, 2026-12-04): to the binary without the SDK (35.38 MB, 342 packages, none
// of gRPC) it adds 4.97 MB and 144 packages, 69 of them gRPC's (through the OTLP collector
// types it imports); with this exporter the SDK adds 1.66 MB and 39 packages, none of gRPC.
//
// A Join keeps its steps (start, end, error) in a fixed array and makes the spans only when it
// ends, at the relay's start or at the connection's failure: by then the name (join, status),
// the parent (a trusted traceparent) and the sampling decision are known, and nothing is
// exported while the join is under way. Nothing is recorded per frame.
//
// A trusted traceparent is read by this package's parser (parent.go), not the SDK's
// propagator, and only when the relay passes the header on (trust_parent, a trusted proxy);
// it becomes the join's remote parent SpanContext, whose sampled flag the sampler follows.
//
// Spans go to one export goroutine (the batch processor's): a full queue drops the join's
// spans and counts them, a failing or slow collector costs its timeout on that goroutine only
// (counted by countingExporter), and Shutdown flushes what is queued within its context.
package tracing
