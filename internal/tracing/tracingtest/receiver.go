// Package tracingtest is an OTLP/HTTP trace collector for tests: it listens on loopback,
// decodes each export request (protobuf, as go.opentelemetry.io/proto/otlp defines it) and
// keeps the spans and the request headers for the test to check.
package tracingtest

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver is a running collector; Start returns it and the test's cleanup stops it.
type Receiver struct {
	URL string // the export endpoint, http://127.0.0.1:port/v1/traces

	srv      *http.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string // each request's service.name
	headers  []http.Header
}

// Start runs a Receiver on 127.0.0.1.
func Start(t testing.TB) *Receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{URL: "http://" + ln.Addr().String() + "/v1/traces"}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); r.srv.Serve(ln) }()
	t.Cleanup(func() { r.srv.Close(); <-done })
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "not an OTLP traces export", http.StatusNotFound)
		return
	}
	body, err := readBody(req)
	var export coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &export)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.keep(req.Header, &export)
	answer, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(answer)
}

func readBody(req *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 16<<20))
	if err != nil || req.Header.Get("Content-Encoding") != "gzip" {
		return body, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func (r *Receiver) keep(h http.Header, export *coltracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.headers = append(r.headers, h.Clone())
	for _, rs := range export.ResourceSpans {
		r.services = append(r.services, attr(rs.GetResource().GetAttributes(), "service.name"))
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
}

// Spans are the spans received so far, in order.
func (r *Receiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// Services are the service names of the exports received so far.
func (r *Receiver) Services() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.services...)
}

// Headers are the headers of the export requests received so far.
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}

// Attr is span's string (or integer, in decimal) attribute key; "" when it has none.
func Attr(span *tracepb.Span, key string) string { return attr(span.GetAttributes(), key) }

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key != key {
			continue
		}
		if v, ok := kv.Value.GetValue().(*commonpb.AnyValue_IntValue); ok {
			return strconv.FormatInt(v.IntValue, 10)
		}
		return kv.Value.GetStringValue()
	}
	return ""
}

// ID is a trace or span id in hex, as a traceparent header writes it.
func ID(id []byte) string { return hex.EncodeToString(id) }

// ErrNoSpan is what Find says when no span has the name.
var ErrNoSpan = errors.New("no span of that name")

// Find is the first span named name among spans.
func Find(spans []*tracepb.Span, name string) (*tracepb.Span, error) {
	for _, s := range spans {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, ErrNoSpan
}
