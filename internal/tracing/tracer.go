package tracing

import (
	"cmp"
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/rs/zerolog"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
)

// Tracer makes the Joins of connections and exports their spans. A nil *Tracer is tracing off:
// Start returns nil and Shutdown does nothing.
type Tracer struct {
	cfg      Config
	queue    *queue
	exporter *exporter
}

// scopeName names the instrumentation in the collector (the scope of every span).
const scopeName = "github.com/moonbridge/moonbridge"

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
	exp := newExporter(endpoint, cfg, &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
		stringKV("service.name", cfg.ServiceName), stringKV("service.version", cfg.ServiceVersion)}})
	q := newQueue(exp.export, cfg.QueueSize, cfg.ExportTimeout, log)
	go q.run()
	return &Tracer{cfg: cfg, queue: q, exporter: exp}, nil
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

// Shutdown exports what is queued, within ctx, and stops; joins that end later are dropped
// and counted.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	err := t.queue.shutdown(ctx)
	t.exporter.client.CloseIdleConnections()
	return err
}

// Stats are the spans the queue has handled so far.
type Stats struct {
	Exported uint64 // the collector took them
	Dropped  uint64 // the queue was full, or shut down
	Failed   uint64 // their export failed or timed out
}

// Stats reads the queue's counts; zero for a nil Tracer.
func (t *Tracer) Stats() Stats {
	if t == nil {
		return Stats{}
	}
	return t.queue.stats()
}

// newClient is the exporter's HTTP client: no proxy from the environment, its own idle
// connections (closed at Shutdown), every wait bounded by the export timeout.
func newClient(cfg Config) *http.Client {
	return &http.Client{Timeout: cfg.ExportTimeout, Transport: &http.Transport{
		TLSClientConfig: cfg.TLS, MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second,
		TLSHandshakeTimeout: cfg.ExportTimeout, ResponseHeaderTimeout: cfg.ExportTimeout,
	}}
}
