package relay

import (
	"testing"
	"time"
)

// A flood of refusals writes at most refusalLinesPerSecond lines per reason each second, and the
// first line after it says how many were left out; other reasons are not held back.
func TestRefusalLinesAreSampled(t *testing.T) {
	var s sampler
	t0 := time.Unix(1000, 0)
	written := 0
	for i := range 3 * refusalLinesPerSecond {
		if _, ok := s.allow(refusedPerAddr, t0.Add(time.Duration(i)*time.Millisecond)); ok {
			written++
		}
	}
	if written != refusalLinesPerSecond {
		t.Errorf("%d lines in the first second, want %d", written, refusalLinesPerSecond)
	}
	if _, ok := s.allow(refusedTLS, t0); !ok {
		t.Error("another reason was held back")
	}
	suppressed, ok := s.allow(refusedPerAddr, t0.Add(time.Second))
	if !ok || suppressed != 2*refusalLinesPerSecond {
		t.Errorf("next second: ok %v, suppressed %d; want a line saying %d were left out", ok, suppressed, 2*refusalLinesPerSecond)
	}
}
