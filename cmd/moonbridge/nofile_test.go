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

func TestNoFileShortWarnsWhenMaxConnectionsDoNotFit(t *testing.T) {
	lim := nofile.Limits{Soft: 20000, Hard: 20000}
	if w := noFileShort(lim, 10000); !strings.Contains(w, "max_connections (10000)") || !strings.Contains(w, "to 20032 or set max_connections to 9984") {
		t.Errorf("10000 connections in 20000 descriptors: %q", w)
	}
	if w := noFileShort(lim, 9984); w != "" {
		t.Errorf("9984 connections fit 20000 descriptors, warned %q", w)
	}
}
