package tracing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// exporter posts spans to an OTLP/HTTP collector as protobuf. The body is a TracesData, which
// is the OTLP export request on the wire (both are field 1: repeated ResourceSpans), so that
// the collector's service types, and the gRPC packages they bring, stay out of the binary.
type exporter struct {
	url      string
	headers  map[string]string
	client   *http.Client
	resource *resourcepb.Resource
}

// maxAnswer bounds what is read of a collector's answer (a partial success says little).
const maxAnswer = 64 << 10

func newExporter(url string, cfg Config, resource *resourcepb.Resource) *exporter {
	return &exporter{url: url, headers: cfg.Headers, client: newClient(cfg), resource: resource}
}

// export sends spans in one request; any answer but 2xx is an error.
func (e *exporter) export(ctx context.Context, spans []*tracepb.Span) error {
	body, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:   e.resource,
		ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: scopeName}, Spans: spans}},
	}}})
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
