package tracing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpExporter is an sdktrace.SpanExporter that posts spans to an OTLP/HTTP collector as
// protobuf. The body is a TracesData, which is the OTLP export request on the wire (both are
// field 1: repeated ResourceSpans), so that the collector's service types, and the gRPC
// packages they and the SDK's otlptracehttp exporter bring, stay out of the binary.
type otlpExporter struct {
	url     string
	headers map[string]string
	client  *http.Client
}

// maxAnswer bounds what is read of a collector's answer (a partial success says little).
const maxAnswer = 64 << 10

func newOTLPExporter(url string, cfg Config) *otlpExporter {
	return &otlpExporter{url: url, headers: cfg.Headers, client: newClient(cfg)}
}

// ExportSpans sends spans in one request; any answer but 2xx is an error.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: resourceSpans(spans)})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for name, value := range e.headers {
		req.Header.Set(name, value)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer)) // so the connection is reused
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("collector answered %s", resp.Status)
	}
	return nil
}

// Shutdown closes the client's idle connections; the batch processor calls it once, after
// its last export.
func (e *otlpExporter) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

// newClient is the exporter's HTTP client: no proxy from the environment, its own idle
// connections (closed at Shutdown), TLS as configured (an http:// endpoint is plain), every
// wait bounded by the export timeout.
func newClient(cfg Config) *http.Client {
	return &http.Client{Timeout: cfg.ExportTimeout, Transport: &http.Transport{
		TLSClientConfig: cfg.TLS, MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second,
		TLSHandshakeTimeout: cfg.ExportTimeout, ResponseHeaderTimeout: cfg.ExportTimeout,
	}}
}
