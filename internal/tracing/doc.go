// Package tracing records the join of a player's connection (accept, TLS handshake, WebSocket
// upgrade, route, login and its session-server request, backend dial, the first bytes to the
// backend) as OpenTelemetry spans and exports them over OTLP/HTTP (protobuf). The relay holds a
// *Tracer and a *Join per connection and calls their methods, which do nothing on nil: tracing
// off costs a nil check per step.
//
// The spans are built in OTLP's own protobuf types (go.opentelemetry.io/proto/otlp) and posted
// as the collector's export request (exporter.go). The OpenTelemetry SDK would add 1.6 MB to the
// pure-Go binary and its OTLP/HTTP exporter, which brings gRPC, 4.9 MB in all; this package adds
// 0.2 MB, and a join needs none of what they do beyond it (ids, sampling, a queue).
//
// A Join keeps its steps (start, end, error) in a fixed array and makes the spans only when it
// ends, at the relay's start or at the connection's failure: by then the name (join, status),
// the parent (a trusted traceparent) and the sampling decision are known, and nothing is
// exported while the join is under way. Nothing is recorded per frame.
//
// Spans go through a bounded queue (queue.go) to one export goroutine: a full queue drops the
// join's spans and counts them, a failing or slow collector costs its timeout on that goroutine
// only, and Shutdown flushes what is queued within its context.
package tracing
