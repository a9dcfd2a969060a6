package nofile

import (
	"errors"
	"testing"
)

func TestRaiseLiftsTheSoftLimitToTheHardOne(t *testing.T) {
	lim, err := Raise(0)
	if errors.Is(err, ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if lim.Soft != lim.Hard || lim.Soft < lim.WasSoft || lim.Hard != lim.WasHard {
		t.Errorf("after Raise(0): %+v, want soft = hard, nothing lowered, hard unchanged", lim)
	}
}
