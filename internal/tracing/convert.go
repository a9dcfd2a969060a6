package tracing

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// resourceSpans are spans in OTLP's types. One Tracer has one provider (one resource) and one
// scope, so spans are one ResourceSpans of one ScopeSpans, under the first span's resource and
// scope.
func resourceSpans(spans []sdktrace.ReadOnlySpan) []*tracepb.ResourceSpans {
	out := make([]*tracepb.Span, len(spans))
	for i, s := range spans {
		out[i] = otlpSpan(s)
	}
	scope := spans[0].InstrumentationScope()
	return []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: keyValues(spans[0].Resource().Attributes())},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: scope.Name, Version: scope.Version}, Spans: out,
		}},
	}}
}

func otlpSpan(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc, parent := s.SpanContext(), s.Parent()
	traceID, spanID := sc.TraceID(), sc.SpanID()
	span := &tracepb.Span{
		TraceId: traceID[:], SpanId: spanID[:], Name: s.Name(), Kind: tracepb.Span_SpanKind(s.SpanKind()),
		StartTimeUnixNano: unixNano(s.StartTime()), EndTimeUnixNano: unixNano(s.EndTime()),
		Attributes: keyValues(s.Attributes()), DroppedAttributesCount: uint32(s.DroppedAttributes()),
		Events: events(s.Events()), DroppedEventsCount: uint32(s.DroppedEvents()), Status: status(s.Status()),
	}
	if parent.IsValid() {
		id := parent.SpanID()
		span.ParentSpanId = id[:]
	}
	return span
}

func events(evs []sdktrace.Event) []*tracepb.Span_Event {
	if len(evs) == 0 {
		return nil
	}
	out := make([]*tracepb.Span_Event, len(evs))
	for i, ev := range evs {
		out[i] = &tracepb.Span_Event{Name: ev.Name, TimeUnixNano: unixNano(ev.Time),
			Attributes: keyValues(ev.Attributes), DroppedAttributesCount: uint32(ev.DroppedAttributeCount)}
	}
	return out
}

// status is OTLP's status of st; nil (unset) when st is unset. The codes differ in number:
// OpenTelemetry's Error is 1 and Ok 2, OTLP's the other way round.
func status(st sdktrace.Status) *tracepb.Status {
	switch st.Code {
	case codes.Error:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	case codes.Ok:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	return nil
}

func keyValues(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)}
	}
	return out
}

// anyValue is v in OTLP's types; the join sets strings and integers only, so a list is sent as
// its text.
func anyValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.Emit()}}
}

func unixNano(t time.Time) uint64 { return uint64(t.UnixNano()) }
