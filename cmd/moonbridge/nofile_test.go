package main

import (
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/nofile"
)

func TestNoFileLineSaysTheRoomAndWhoRaised(t *testing.T) {
	raised := noFileLine(nofile.Limits{Soft: 65536, Hard: 65536, WasSoft: 1024, WasHard: 65536})
	if !strings.Contains(raised, "raised from 1024 to 65536") || !strings.Contains(raised, "about 32752 sessions") {
		t.Errorf("raised: %q", raised)
	}
	already := noFileLine(nofile.Limits{Soft: 20000, Hard: 20000, WasSoft: 20000, WasHard: 20000})
	if !strings.Contains(already, "20000, the hard limit") || !strings.Contains(already, "about 9984 sessions") {
		t.Errorf("already at the hard limit: %q", already)
	}
	if got := sessionRoom(10); got != 0 {
		t.Errorf("room in 10 descriptors: %d, want 0", got)
	}
}
