package tracing

import (
	"cmp"
	"context"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Tracer makes the Joins of connections and exports their spans through an OpenTelemetry SDK
// TracerProvider. A nil *Tracer is tracing off: Start returns nil and Shutdown does nothing.
type Tracer struct {
	cfg      Config
	sampler  sdktrace.Sampler
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	queue    *queue
	exporter *countingExporter
}

// scopeName names the instrumentation in the collector (the scope of every span).
const scopeName = "github.com/moonbridge/moonbridge"

// Export batches: at most batchSize spans in one request, and what is queued leaves at least
// every flushEvery.
const (
	batchSize  = 512
	flushEvery = time.Second
)

// Span limits: the Join caps what a client wrote itself (clean); these bound what is left.
const (
	maxAttributeLength = maxErrorText
	maxAttributes      = 32
	maxEvents          = 4
)

// New starts a Tracer that exports to cfg.Endpoint; nil (off) when the endpoint is "".
func New(cfg Config, log zerolog.Logger) (*Tracer, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	endpoint, err := cfg.exportURL()
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return newTracer(cfg, newOTLPExporter(endpoint, cfg), log), nil
}

// newTracer builds the SDK pipeline around exporter: the join's sampler, ids and resource,
// then the queue (a bounded batch span processor) and the counting exporter behind it.
func newTracer(cfg Config, exporter sdktrace.SpanExporter, log zerolog.Logger) *Tracer {
	sampler := sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.SampleRatio))
	counted := &countingExporter{next: exporter, log: log}
	q := newQueue(counted, cfg.QueueSize, cfg.ExportTimeout)
	counted.handed = q.handed
	provider := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(q),
		sdktrace.WithSampler(sampler),
		sdktrace.WithIDGenerator(joinIDs{}),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", cfg.ServiceName), attribute.String("service.version", cfg.ServiceVersion))),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: maxAttributeLength, AttributeCountLimit: maxAttributes,
			EventCountLimit: maxEvents, AttributePerEventCountLimit: maxAttributes,
		}),
	)
	return &Tracer{cfg: cfg, sampler: sampler, provider: provider, tracer: provider.Tracer(scopeName), queue: q, exporter: counted}
}

// withDefaults is c with its zero settings at their defaults, for a Config built in code (the
// file's has every key).
func (c Config) withDefaults() Config {
	c.ServiceName = cmp.Or(c.ServiceName, DefaultServiceName)
	c.QueueSize = cmp.Or(max(c.QueueSize, 0), DefaultQueueSize)
	c.ExportTimeout = cmp.Or(max(c.ExportTimeout, 0), DefaultExportTimeout)
	return c
}

// Start begins the Join of a connection accepted at accepted: nil when tracing is off, or when
// this join is not sampled and no trusted parent can change that.
func (t *Tracer) Start(accepted time.Time) *Join {
	if t == nil {
		return nil
	}
	id := newTraceID()
	if !t.cfg.TrustParent && !t.sampled(context.Background(), id) {
		return nil
	}
	return &Join{t: t, start: accepted, traceID: id}
}

// TrustsParent says whether a join may take a traceparent header (Config.TrustParent).
func (t *Tracer) TrustsParent() bool { return t != nil && t.cfg.TrustParent }

// sampled asks the provider's sampler whether a join of trace id, child of ctx's remote span
// when it has one, is traced. The sampler decides by the parent's flag, else by the trace id,
// so the provider, asked again when the join's spans are made, answers the same.
func (t *Tracer) sampled(ctx context.Context, id trace.TraceID) bool {
	return t.sampler.ShouldSample(sdktrace.SamplingParameters{
		ParentContext: ctx, TraceID: id, Name: NameConnection, Kind: trace.SpanKindServer,
	}).Decision == sdktrace.RecordAndSample
}

// Shutdown exports what is queued, within ctx, and stops the provider; joins that end later
// are dropped and counted. Spans an export still carries when ctx ends are counted when it
// ends (exported or failed).
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// Stats are the spans of sampled joins so far, by what became of them.
type Stats struct {
	Exported uint64 // the collector took them
	Dropped  uint64 // refused by the queue: it was full, or shut down (see queue.admit)
	Failed   uint64 // their export failed or timed out
}

// Stats reads the counts; zero for a nil Tracer.
func (t *Tracer) Stats() Stats {
	if t == nil {
		return Stats{}
	}
	return Stats{Exported: t.exporter.exported.Load(), Dropped: t.queue.dropped.Load(), Failed: t.exporter.failed.Load()}
}
