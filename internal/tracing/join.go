package tracing

import (
	"context"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
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
	t       *Tracer
	start   time.Time
	traceID trace.TraceID // drawn at Start: the trace of the join's span when it has no parent

	mu         sync.Mutex
	steps      [numSteps]record
	attrs      [numAttrs]attribute.KeyValue // not Valid: not set
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
	j.attrs[a] = attribute.String(attrInfo[a].key, v)
	j.mu.Unlock()
}

// SetInt sets a number attribute of the join's span.
func (j *Join) SetInt(a Attr, v int64) {
	if j == nil {
		return
	}
	j.mu.Lock()
	j.attrs[a] = attribute.Int64(attrInfo[a].key, v)
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
	if j.status && !j.t.cfg.StatusPings {
		return
	}
	j.export(now, outcome, err)
}

// export makes the join's spans, ending at end with outcome and err, when it is sampled and
// the queue has room for them all. A trusted parent's flag decides the sampling; without one
// the trace id does (drawn at Start, so the decision there stands).
func (j *Join) export(end time.Time, outcome string, err error) {
	ctx := withTraceID(context.Background(), j.traceID)
	if j.parent.valid {
		ctx = trace.ContextWithRemoteSpanContext(ctx, j.parent.spanContext())
	}
	if !j.t.sampled(ctx, j.traceID) {
		return
	}
	j.t.queue.admit(j.spanCount(), func() { j.makeSpans(ctx, end, outcome, err) })
}

// spanCount is the number of spans makeSpans makes: the join's and one per step recorded.
func (j *Join) spanCount() int {
	n := 1
	for _, r := range j.steps {
		if r.set {
			n++
		}
	}
	return n
}

// makeSpans starts and ends the join's span and its steps' under it, with the times they had.
func (j *Join) makeSpans(ctx context.Context, end time.Time, outcome string, err error) {
	ctx, root := j.t.tracer.Start(ctx, j.spanName(), trace.WithTimestamp(j.start),
		trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(j.attributes(outcome)...))
	setError(root, err)
	if !j.firstBytes.IsZero() {
		root.AddEvent(eventFirst, trace.WithTimestamp(j.firstBytes),
			trace.WithAttributes(attribute.Int64(keyFirstBytes, int64(j.firstSize))))
	}
	var under [numSteps + 1]context.Context // each step's span's context, for the steps under it
	under[noStep] = ctx
	for step, r := range j.steps {
		if !r.set {
			continue
		}
		parent := under[stepInfo[step].parent]
		if parent == nil {
			parent = ctx
		}
		var span trace.Span
		under[step], span = j.t.tracer.Start(parent, stepInfo[step].name, trace.WithTimestamp(r.start),
			trace.WithSpanKind(trace.SpanKindInternal))
		setError(span, r.err)
		span.End(trace.WithTimestamp(r.end))
	}
	root.End(trace.WithTimestamp(end))
}

func (j *Join) spanName() string {
	if j.name == "" {
		return NameConnection
	}
	return j.name
}

// attributes are the join's attributes that were set, its outcome and its refusal's reason.
func (j *Join) attributes(outcome string) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, numAttrs+2)
	for _, a := range j.attrs {
		if a.Valid() {
			kv = append(kv, a)
		}
	}
	kv = append(kv, attribute.String(keyOutcome, outcome))
	if j.reason != "" {
		kv = append(kv, attribute.String(keyReason, j.reason))
	}
	return kv
}

// setError gives span the error status with err's text, capped and cleaned; nil leaves it unset.
func setError(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, clean(err.Error(), maxErrorText))
	}
}
