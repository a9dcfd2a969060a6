package tracing

import (
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Span names of the join, by what its hello asked.
const (
	NameConnection = "connection" // no hello (yet): refused or closed before it
	NameJoin       = "join"       // a login (or a transfer's)
	NameStatus     = "status"     // a server-list ping
)

// Join is one connection's join, from accept to the relay's start or the connection's end. Its
// methods may be called from the connection's goroutines and its handshake timer; on a nil
// *Join (tracing off, or not sampled) they do nothing and allocate nothing.
type Join struct {
	t     *Tracer
	start time.Time

	mu         sync.Mutex
	steps      [numSteps]record
	attrs      [numAttrs]*commonpb.KeyValue // nil: not set
	name       string
	status     bool      // a server-list ping
	parent     parent    // a trusted traceparent's; not valid: none
	firstBytes time.Time // when the backend got the first bytes; zero: never
	firstSize  int
	reason     string // a refusal's reason, for Close
	refusal    error
	held       bool // a session ends the join (Hold); Close leaves it
	ended      bool
}

// record is one step's times and error.
type record struct {
	start, end time.Time
	err        error
	set        bool
}

// Now is the time for a step's start: the zero time, at no cost, when j is nil.
func (j *Join) Now() time.Time {
	if j == nil {
		return time.Time{}
	}
	return time.Now()
}

// Step records step from start to now; err is its failure (nil: it went through).
func (j *Join) Step(step Step, start time.Time, err error) {
	if j == nil {
		return
	}
	now := time.Now()
	j.mu.Lock()
	j.steps[step] = record{start: start, end: now, err: err, set: true}
	j.mu.Unlock()
}

// StepFromLast records step from the end of the last step recorded (accept's start when none)
// to now: a step whose start is the end of whichever came before it.
func (j *Join) StepFromLast(step Step, err error) {
	if j == nil {
		return
	}
	j.mu.Lock()
	start := j.start
	for _, r := range j.steps {
		if r.set && r.end.After(start) {
			start = r.end
		}
	}
	j.mu.Unlock()
	j.Step(step, start, err)
}

// Set sets an attribute of the join's span; what a client wrote is capped and cleaned.
func (j *Join) Set(a Attr, v string) {
	if j == nil {
		return
	}
	if attrInfo[a].client {
		v = clean(v, maxClientText)
	}
	j.mu.Lock()
	j.attrs[a] = stringKV(attrInfo[a].key, v)
	j.mu.Unlock()
}

// SetInt sets a number attribute of the join's span.
func (j *Join) SetInt(a Attr, v int64) {
	if j == nil {
		return
	}
	j.mu.Lock()
	j.attrs[a] = intKV(attrInfo[a].key, v)
	j.mu.Unlock()
}

// Name names the join's span by what its hello asked (NameJoin, NameStatus).
func (j *Join) Name(name string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	j.name, j.status = name, name == NameStatus
	j.mu.Unlock()
}

// FirstBytes notes that the backend got its first n bytes now.
func (j *Join) FirstBytes(n int) {
	if j == nil {
		return
	}
	now := time.Now()
	j.mu.Lock()
	j.firstBytes, j.firstSize = now, n
	j.mu.Unlock()
}

// Refuse notes why the connection is refused before its session (a refusal reason as the
// metrics name it); the first one stands, and Close reports it.
func (j *Join) Refuse(reason string, err error) {
	if j == nil {
		return
	}
	j.mu.Lock()
	if j.reason == "" {
		j.reason, j.refusal = reason, err
	}
	j.mu.Unlock()
}

// Parent makes the join the child of header's traceparent (W3C trace context), when the
// tracer trusts parents; the caller checked that header came from a trusted proxy.
func (j *Join) Parent(header http.Header) {
	if j == nil || !j.t.cfg.TrustParent {
		return
	}
	if p := parseParent(header); p.valid {
		j.mu.Lock()
		j.parent = p
		j.mu.Unlock()
	}
}

// Hold gives the join to the connection's session, which ends it with End: from now on Close,
// which the connection's close calls (also when a failing session closes it), leaves it.
func (j *Join) Hold() {
	if j == nil {
		return
	}
	j.mu.Lock()
	j.held = true
	j.mu.Unlock()
}

// Close ends a join whose connection closed before it had a session: refused (Refuse said
// why) or closed by the client. A join ended or held stays as it is.
func (j *Join) Close() {
	if j == nil {
		return
	}
	j.mu.Lock()
	reason, err, held := j.reason, j.refusal, j.held
	j.mu.Unlock()
	if held {
		return
	}
	if reason != "" {
		j.End("refused", err)
		return
	}
	j.End("closed", nil)
}

// End ends the join now with outcome (relayed, or how the session ended, as the metrics name
// it) and err, its failure; only the first End counts. The spans are made and queued here,
// unless the join is not sampled or is a server-list ping the tracer leaves out.
func (j *Join) End(outcome string, err error) {
	if j == nil {
		return
	}
	now := time.Now()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return
	}
	j.ended = true
	if j.status && !j.t.cfg.StatusPings || !j.sampled() {
		return
	}
	j.t.queue.add(j.spans(now, outcome, err))
}

// sampled says whether the join is exported: a trusted parent's flag decides; without one the
// draw at Start did, or, when a parent could still have come, the draw now.
func (j *Join) sampled() bool {
	switch {
	case j.parent.valid:
		return j.parent.sampled
	case j.t.cfg.TrustParent:
		return j.t.sampled()
	}
	return true
}

// spans are the join's span and its steps' under it, with the times they had.
func (j *Join) spans(end time.Time, outcome string, err error) []*tracepb.Span {
	traceID := j.parent.traceID
	if !j.parent.valid {
		traceID = newTraceID()
	}
	root := &tracepb.Span{TraceId: traceID[:], SpanId: newSpanID(), Name: j.spanName(),
		Kind: tracepb.Span_SPAN_KIND_SERVER, StartTimeUnixNano: unixNano(j.start), EndTimeUnixNano: unixNano(end),
		Attributes: j.attributes(outcome), Status: status(err)}
	if j.parent.valid {
		root.ParentSpanId = j.parent.spanID[:]
	}
	if !j.firstBytes.IsZero() {
		root.Events = []*tracepb.Span_Event{{Name: eventFirst, TimeUnixNano: unixNano(j.firstBytes),
			Attributes: []*commonpb.KeyValue{intKV(keyFirstBytes, int64(j.firstSize))}}}
	}
	spans := []*tracepb.Span{root}
	var ids [numSteps + 1][]byte
	ids[noStep] = root.SpanId
	for step, r := range j.steps {
		if !r.set {
			continue
		}
		parentID := ids[stepInfo[step].parent]
		if parentID == nil {
			parentID = root.SpanId
		}
		ids[step] = newSpanID()
		spans = append(spans, &tracepb.Span{TraceId: root.TraceId, SpanId: ids[step], ParentSpanId: parentID,
			Name: stepInfo[step].name, Kind: tracepb.Span_SPAN_KIND_INTERNAL,
			StartTimeUnixNano: unixNano(r.start), EndTimeUnixNano: unixNano(r.end), Status: status(r.err)})
	}
	return spans
}

func (j *Join) spanName() string {
	if j.name == "" {
		return NameConnection
	}
	return j.name
}

// attributes are the join's attributes that were set, its outcome and its refusal's reason.
func (j *Join) attributes(outcome string) []*commonpb.KeyValue {
	kv := make([]*commonpb.KeyValue, 0, numAttrs+2)
	for _, a := range j.attrs {
		if a != nil {
			kv = append(kv, a)
		}
	}
	kv = append(kv, stringKV(keyOutcome, outcome))
	if j.reason != "" {
		kv = append(kv, stringKV(keyReason, j.reason))
	}
	return kv
}

// status is an error status with err's text, capped and cleaned; nil for nil (unset).
func status(err error) *tracepb.Status {
	if err == nil {
		return nil
	}
	return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: clean(err.Error(), maxErrorText)}
}

func stringKV(key, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: key, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func intKV(key string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: key, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

func unixNano(t time.Time) uint64 { return uint64(t.UnixNano()) }

// newTraceID and newSpanID are random ids, never all zero (which means none).
func newTraceID() (id [16]byte) {
	for id == [16]byte{} {
		binary.LittleEndian.PutUint64(id[:8], rand.Uint64())
		binary.LittleEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() []byte {
	var id [8]byte
	for id == [8]byte{} {
		binary.LittleEndian.PutUint64(id[:], rand.Uint64())
	}
	return id[:]
}
