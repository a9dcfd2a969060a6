package tracing

import (
	"cmp"
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Tracer makes the Joins of connections and exports their spans. A nil *Tracer is tracing off:
// Start returns nil and Shutdown does nothing.
type Tracer struct {
	cfg      Config
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	queue    *queue
	client   *http.Client
}

// Span limits: the relay caps what a client wrote itself (clean), these are the bound behind it.
const (
	maxAttributeLength = 256
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
	// A client of its own: no proxy from the environment, and its idle connections close at
	// Shutdown (the exporter's shared transport would keep them).
	client := &http.Client{Timeout: cfg.ExportTimeout, Transport: &http.Transport{
		TLSClientConfig: cfg.TLS, MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second,
		TLSHandshakeTimeout: cfg.ExportTimeout, ResponseHeaderTimeout: cfg.ExportTimeout,
	}}
	exporter, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(endpoint),
		otlptracehttp.WithHeaders(cfg.Headers), otlptracehttp.WithHTTPClient(client),
		otlptracehttp.WithTimeout(cfg.ExportTimeout), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, err
	}
	q := newQueue(exporter, cfg.QueueSize, cfg.ExportTimeout, log)
	provider := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(q),
		// The Join decides: a join of its own was sampled when it started or ends (sampled); a
		// trusted parent's flag decides for its child.
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", cfg.ServiceName), attribute.String("service.version", cfg.ServiceVersion))),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: maxAttributeLength, AttributeCountLimit: maxAttributes,
			EventCountLimit: maxEvents, AttributePerEventCountLimit: maxAttributes,
		}),
	)
	go q.run()
	return &Tracer{cfg: cfg, provider: provider, tracer: provider.Tracer("github.com/moonbridge/moonbridge"), queue: q, client: client}, nil
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
	if !t.cfg.TrustParent && !t.sampled() {
		return nil
	}
	return &Join{t: t, start: accepted}
}

// TrustsParent says whether a join may take a traceparent header (Config.TrustParent).
func (t *Tracer) TrustsParent() bool { return t != nil && t.cfg.TrustParent }

// sampled draws whether a join without a parent is traced.
func (t *Tracer) sampled() bool { return rand.Float64() < t.cfg.SampleRatio }

// Shutdown exports what is queued, within ctx, and stops the exporter; joins that end later
// are not exported.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	err := t.provider.Shutdown(ctx)
	t.client.CloseIdleConnections()
	return err
}

// Stats are the spans the queue has handled so far.
type Stats struct {
	Exported uint64 // the collector took them
	Dropped  uint64 // the queue was full
	Failed   uint64 // their export failed or timed out
}

// Stats reads the queue's counts; zero for a nil Tracer.
func (t *Tracer) Stats() Stats {
	if t == nil {
		return Stats{}
	}
	return t.queue.stats()
}
