package tracing

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A join's spans are the OpenTelemetry SDK's: any sdktrace.SpanExporter takes them, with the
// provider's resource and scope, the join's structure, and the counts kept by the wrappers.
func TestJoinThroughSDKExporter(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tr := newTracer(Config{SampleRatio: 1, ServiceName: "edge-1", QueueSize: 16, ExportTimeout: time.Second}.withDefaults(),
		mem, zerolog.Nop())
	j := tr.Start(time.Now())
	j.Name(NameJoin)
	login := j.Now()
	j.Step(StepSessionServer, j.Now(), nil)
	j.Step(StepLogin, login, errors.New("login refused"))
	j.End("login_refused", errors.New("login refused"))
	if err := tr.provider.ForceFlush(context.Background()); err != nil { // the in-memory exporter forgets at Shutdown
		t.Fatal(err)
	}
	stubs := mem.GetSpans()
	defer tr.Shutdown(context.Background())
	byName := map[string]tracetest.SpanStub{}
	for _, s := range stubs {
		byName[s.Name] = s
	}
	root, loginSpan, session := byName[NameJoin], byName["login"], byName["session_server"]
	if len(stubs) != 3 || root.SpanKind != trace.SpanKindServer || root.Parent.IsValid() {
		t.Fatalf("spans %v: want a server span join with login and session_server", stubs)
	}
	if loginSpan.Parent.SpanID() != root.SpanContext.SpanID() || session.Parent.SpanID() != loginSpan.SpanContext.SpanID() {
		t.Error("login is not under the join, or session_server not under login")
	}
	if root.Status.Code != codes.Error || loginSpan.Status.Code != codes.Error || session.Status.Code != codes.Unset {
		t.Errorf("statuses %v %v %v", root.Status, loginSpan.Status, session.Status)
	}
	if v, _ := root.Resource.Set().Value("service.name"); v.AsString() != "edge-1" || root.InstrumentationScope.Name != scopeName {
		t.Errorf("resource %v, scope %q", root.Resource, root.InstrumentationScope.Name)
	}
	if st := tr.Stats(); st != (Stats{Exported: 3}) {
		t.Errorf("stats %+v, want the 3 spans exported", st)
	}
}
