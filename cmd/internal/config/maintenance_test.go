package config

import (
	"strings"
	"testing"
	"time"
)

// The maintenance list reads with its defaults and becomes the relay's maintenance.
func TestMaintenanceEntries(t *testing.T) {
	cfg, err := Parse([]byte(`maintenance:
  - route: lobby
    on: true
    allow: [Steve, 069a79f4-44e9-4726-a5be-fca90e38aaf5]
    start: 2026-12-24T18:00:00Z
    end: 2026-12-24T20:00:00+01:00
  - on: false
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Maintenance[0]
	if d := DefaultMaintenanceEntry(); e.MOTD != d.MOTD || e.Message != d.Message || e.Version != d.Version {
		t.Errorf("entry %+v, want the default texts", e)
	}
	mode, err := e.Mode("maintenance[0]", ReadIcon)
	if err != nil || mode == nil {
		t.Fatalf("Mode: %v, %v", mode, err)
	}
	if !mode.Start.Equal(time.Date(2026, 12, 24, 18, 0, 0, 0, time.UTC)) || !mode.End.Equal(time.Date(2026, 12, 24, 19, 0, 0, 0, time.UTC)) {
		t.Errorf("times %v to %v", mode.Start, mode.End)
	}
	if len(mode.Allow.Entries()) != 2 {
		t.Errorf("allowlist %v", mode.Allow.Entries())
	}
	if off, err := cfg.Maintenance[1].Mode("maintenance[1]", ReadIcon); off != nil || err != nil {
		t.Errorf("an entry that is off: %v, %v", off, err)
	}
	if len(Default().Maintenance) != 0 {
		t.Error("the defaults have a maintenance")
	}
}

// What the least trusted writer of the file (or of the API's body, which Mode reads too) could
// put in an entry is refused, naming the key.
func TestMaintenanceEntryErrors(t *testing.T) {
	for text, wantKey := range map[string]string{
		"motd: '{\"text\":'":                                         "maintenance[0].motd",
		"message: " + strings.Repeat("m", 5000):                      "maintenance[0].message",
		"allow: [\"two words\"]":                                     "maintenance[0].allow",
		"allow: [" + strings.Repeat("a,", 1001) + "b]":               "maintenance[0].allow",
		"start: tomorrow":                                            "maintenance[0].start",
		"start: 2026-12-24T18:00:00Z\n    end: 2026-12-24T17:00:00Z": "maintenance[0].end",
		"icon: /dev/zero":                                            "maintenance[0].icon",
		"version: " + strings.Repeat("v", 300):                       "maintenance[0].version",
		"kick: true":                                                 "maintenance[0].kick",
	} {
		for _, on := range []string{"true", "false"} {
			_, err := Parse([]byte("maintenance:\n  - on: "+on+"\n    "+text+"\n"), noEnv)
			if err == nil || !strings.Contains(err.Error(), wantKey) {
				t.Errorf("on %s, %.50s: error %v, want one naming %s", on, text, err, wantKey)
			}
		}
	}
	_, err := Parse([]byte("maintenance:\n  - route: lobby\n  - route: lobby\n"), noEnv)
	if err == nil || !strings.Contains(err.Error(), "maintenance[1].route") {
		t.Errorf("two entries for one route: %v", err)
	}
}

// The API's icon is the PNG in base64, bounded before it is decoded.
func TestIconFromBase64(t *testing.T) {
	if _, err := IconFromBase64(strings.Repeat("A", 4*MaxIconBytes)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an icon four times the bound: %v", err)
	}
	for _, bad := range []string{"not base64!", "aGVsbG8="} {
		if _, err := IconFromBase64(bad); err == nil {
			t.Errorf("%q taken as an icon", bad)
		}
	}
}

// A maintenance entry for a label no route of the file has is a warning: it applies only if
// the routes API or discovery serves a route of that label.
func TestMaintenanceForAnUnknownRouteWarns(t *testing.T) {
	cfg, err := Parse([]byte("maintenance:\n  - route: surival\n    on: true\n  - route: \"*\"\n    on: true\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range cfg.Warnings() {
		if w.Kind == WarnMaintenanceRoute {
			got = append(got, w.String())
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], `maintenance[0].route: "surival" names no route of this file`) {
		t.Errorf("warnings %q, want one for surival", got)
	}
}
