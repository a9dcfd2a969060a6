package pipe

import (
	"errors"
	"strings"
	"testing"
)

func TestEndFirstReasonWinsAndClosesOnce(t *testing.T) {
	var e End
	var closed []error
	e.Add(func(reason error) { closed = append(closed, reason) })
	e.Fail(nil) // a step that did not fail ends nothing
	if e.Reason() != nil || len(closed) != 0 {
		t.Fatalf("Fail(nil): reason %v, %d closes", e.Reason(), len(closed))
	}
	first, second := errors.New("first"), errors.New("second")
	e.Fail(first)
	e.Fail(second)
	e.Close()
	if e.Reason() != first {
		t.Errorf("reason %v, want the first", e.Reason())
	}
	if len(closed) != 1 || closed[0] != first {
		t.Errorf("closes %v, want one with the first reason", closed)
	}
}

func TestEndClosesLateSideAtOnce(t *testing.T) {
	var e End
	e.Fail(errors.New("shutdown"))
	var got error
	if e.Add(func(reason error) { got = reason }) || got == nil || got.Error() != "shutdown" {
		t.Errorf("Add after the end: closed with %v, want at once with the reason", got)
	}
}

func TestEndCleanClose(t *testing.T) {
	var e End
	calls := 0
	e.Add(func(reason error) {
		calls++
		if reason != nil {
			t.Errorf("clean close with reason %v", reason)
		}
	})
	e.Close()
	e.Close()
	if calls != 1 || e.Reason() != nil {
		t.Errorf("%d closes, reason %v; want 1, nil", calls, e.Reason())
	}
}

// TestEndHandoverForgetsOnlySocketClosers: after Handover the socket closers do not run at the
// end (their sockets have a new owner) and the others still do, once.
func TestEndHandoverForgetsOnlySocketClosers(t *testing.T) {
	var e End
	var ran []string
	e.AddSocket(func(error) { ran = append(ran, "player socket") })
	e.Add(func(error) { ran = append(ran, "route slot") })
	e.AddSocket(func(error) { ran = append(ran, "backend socket") })
	e.Handover()
	e.Add(func(error) { ran = append(ran, "loop session") })
	e.Close()
	e.Close()
	if got := strings.Join(ran, ", "); got != "route slot, loop session" {
		t.Errorf("closers run: %s, want route slot, loop session", got)
	}
}
