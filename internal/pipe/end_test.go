package pipe

import (
	"errors"
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
