package tracing_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/moonbridge/moonbridge/internal/tracing"
	"github.com/moonbridge/moonbridge/internal/tracing/tracingtest"
)

// run starts a tracer exporting to a fresh receiver, lets use make joins, and returns the
// spans the receiver got once the tracer has shut down.
func run(t *testing.T, cfg tracing.Config, use func(tr *tracing.Tracer)) (*tracingtest.Receiver, []*tracepb.Span) {
	t.Helper()
	rcv := tracingtest.Start(t)
	if cfg.Endpoint == "" {
		cfg.Endpoint = rcv.URL
	}
	tr, err := tracing.New(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	use(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	return rcv, rcv.Spans()
}

func byName(t *testing.T, spans []*tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	s, err := tracingtest.Find(spans, name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func TestJoinSpans(t *testing.T) {
	hostile := "play.example.net\n\x1b[31m" + strings.Repeat("x", 200)
	rcv, spans := run(t, tracing.Config{SampleRatio: 1, ServiceName: "edge-1", Headers: map[string]string{"X-Api-Key": "k3y"}},
		func(tr *tracing.Tracer) {
			j := tr.Start(time.Now())
			j.Step(tracing.StepAccept, j.Now(), nil)
			j.Name(tracing.NameJoin)
			j.Set(tracing.AttrHost, hostile)
			j.SetInt(tracing.AttrProtocol, 767)
			login := j.Now()
			j.Step(tracing.StepSessionServer, j.Now(), errors.New("session server: 503"))
			j.Step(tracing.StepLogin, login, errors.New("login refused"))
			j.End("login_refused", errors.New("login refused (session_server_unreachable)\n"+strings.Repeat("y", 500)))
		})
	if len(spans) != 4 {
		t.Fatalf("%d spans, want the join, accept, login, session_server", len(spans))
	}
	root := byName(t, spans, tracing.NameJoin)
	if len(root.ParentSpanId) != 0 || root.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the join has a parent %x or kind %v", root.ParentSpanId, root.Kind)
	}
	login := byName(t, spans, "login")
	for child, parent := range map[string]*tracepb.Span{"accept": root, "login": root, "session_server": login} {
		if s := byName(t, spans, child); string(s.ParentSpanId) != string(parent.SpanId) || string(s.TraceId) != string(root.TraceId) {
			t.Errorf("%s is not a child of %s", child, parent.Name)
		}
	}
	host := tracingtest.Attr(root, "moonbridge.host")
	if len(host) > 64 || strings.ContainsAny(host, "\n\x1b") || !strings.HasPrefix(host, "play.example.net??[31m") {
		t.Errorf("the client's host went out as %q: want it capped at 64 bytes and cleaned", host)
	}
	if msg := root.Status.GetMessage(); root.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || len(msg) > 256 || strings.Contains(msg, "\n") {
		t.Errorf("status %v: want an error, its text capped at 256 bytes on one line", root.Status)
	}
	if got := tracingtest.Attr(root, "moonbridge.protocol_version"); got != "767" {
		t.Errorf("protocol version %q", got)
	}
	if svc := rcv.Services(); len(svc) == 0 || svc[0] != "edge-1" {
		t.Errorf("service names %v", svc)
	}
	if h := rcv.Headers(); len(h) == 0 || h[0].Get("X-Api-Key") != "k3y" {
		t.Errorf("the export request did not carry the configured header: %v", h)
	}
}

// A join ends once: an End or Close after the first changes nothing.
func TestJoinEndsOnce(t *testing.T) {
	_, spans := run(t, tracing.Config{SampleRatio: 1}, func(tr *tracing.Tracer) {
		j := tr.Start(time.Now())
		j.Refuse("tls_handshake", errors.New("bad record"))
		j.Close()
		j.End("relayed", nil)
		j.Close()
	})
	if len(spans) != 1 || tracingtest.Attr(spans[0], "moonbridge.outcome") != "refused" ||
		tracingtest.Attr(spans[0], "moonbridge.reason") != "tls_handshake" || spans[0].Name != tracing.NameConnection {
		t.Errorf("spans %v: want one refused connection", spans)
	}
}

// A held join (its session ends it) is not ended by the connection's close.
func TestHeldJoinIgnoresClose(t *testing.T) {
	_, spans := run(t, tracing.Config{SampleRatio: 1}, func(tr *tracing.Tracer) {
		j := tr.Start(time.Now())
		j.Hold()
		j.Close()
		j.End("no_route", errors.New("no route"))
	})
	if len(spans) != 1 || tracingtest.Attr(spans[0], "moonbridge.outcome") != "no_route" {
		t.Errorf("spans %v: want the session's end", spans)
	}
}

func TestSampling(t *testing.T) {
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	parent := func(flags string) http.Header {
		return http.Header{"Traceparent": {"00-" + traceID + "-" + spanID + "-" + flags}}
	}
	for _, tc := range []struct {
		name    string
		cfg     tracing.Config
		header  http.Header
		status  bool
		want    int // spans
		inTrace bool
	}{
		{"ratio 0 traces nothing", tracing.Config{SampleRatio: 0}, nil, false, 0, false},
		{"ratio 1 traces all", tracing.Config{SampleRatio: 1}, nil, false, 1, false},
		{"an untrusted parent decides nothing", tracing.Config{SampleRatio: 0}, parent("01"), false, 0, false},
		{"an untrusted parent is not joined", tracing.Config{SampleRatio: 1}, parent("01"), false, 1, false},
		{"a trusted parent samples", tracing.Config{SampleRatio: 0, TrustParent: true}, parent("01"), false, 1, true},
		{"a trusted parent does not sample", tracing.Config{SampleRatio: 1, TrustParent: true}, parent("00"), false, 0, false},
		{"trusting, no parent: the ratio", tracing.Config{SampleRatio: 0, TrustParent: true}, nil, false, 0, false},
		{"a malformed parent is none", tracing.Config{SampleRatio: 1, TrustParent: true}, http.Header{"Traceparent": {"00-zz-01"}}, false, 1, false},
		{"status pings left out", tracing.Config{SampleRatio: 1}, nil, true, 0, false},
		{"status pings traced", tracing.Config{SampleRatio: 1, StatusPings: true}, nil, true, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, spans := run(t, tc.cfg, func(tr *tracing.Tracer) {
				j := tr.Start(time.Now())
				if tc.header != nil {
					j.Parent(tc.header)
				}
				if tc.status {
					j.Name(tracing.NameStatus)
				}
				j.End("relayed", nil)
			})
			if len(spans) != tc.want {
				t.Fatalf("%d spans, want %d", len(spans), tc.want)
			}
			if tc.want == 1 && (tracingtest.ID(spans[0].TraceId) == traceID) != tc.inTrace {
				t.Errorf("in the parent's trace: %v, want %v", !tc.inTrace, tc.inTrace)
			}
		})
	}
}

func TestOff(t *testing.T) {
	tr, err := tracing.New(tracing.Config{}, zerolog.Nop())
	if err != nil || tr != nil {
		t.Fatalf("no endpoint: %v, %v; want tracing off (nil)", tr, err)
	}
	if j := tr.Start(time.Now()); j != nil || tr.TrustsParent() || tr.Shutdown(context.Background()) != nil {
		t.Error("a nil tracer must do nothing")
	}
	for _, bad := range []string{"collector:4318", "ftp://collector/v1/traces", "http://"} {
		if _, err := tracing.New(tracing.Config{Endpoint: bad}, zerolog.Nop()); err == nil {
			t.Errorf("endpoint %q taken", bad)
		}
	}
}

// An endpoint without a path exports to /v1/traces.
func TestDefaultPath(t *testing.T) {
	rcv := tracingtest.Start(t)
	base := strings.TrimSuffix(rcv.URL, "/v1/traces")
	_, spans := run(t, tracing.Config{Endpoint: base, SampleRatio: 1}, func(tr *tracing.Tracer) {
		tr.Start(time.Now()).End("relayed", nil)
	})
	if len(rcv.Spans()) != 1 || len(spans) != 0 {
		t.Errorf("got %d spans at %s", len(rcv.Spans()), base)
	}
}
