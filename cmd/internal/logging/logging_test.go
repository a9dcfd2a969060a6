package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJSONLinesHaveLevelTimeAndCause(t *testing.T) {
	var out bytes.Buffer
	log, err := New(&out, "info", "auto") // a buffer is not a terminal: JSON
	if err != nil {
		t.Fatal(err)
	}
	log.Debug().Msg("hidden")
	log.Error().Err(errors.New("backend refused")).Msg("dial failed")
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("not one JSON line: %q", out.String())
	}
	if line["level"] != "error" || line["time"] == nil || line["error"] != "backend refused" {
		t.Errorf("line %v", line)
	}
}

// A duration carries its unit (issue 13, defect 10: "duration":1234.5 had none).
func TestDurationsHaveAUnit(t *testing.T) {
	var out bytes.Buffer
	log, err := New(&out, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	log.Info().Dur("duration", 1500*time.Millisecond).Msg("session ended")
	if !strings.Contains(out.String(), `"duration":"1.5s"`) {
		t.Errorf("duration written as %q, want \"1.5s\"", out.String())
	}
}

func TestConsoleFormatAndBadSettings(t *testing.T) {
	var out bytes.Buffer
	log, err := New(&out, "debug", "console")
	if err != nil {
		t.Fatal(err)
	}
	log.Debug().Msg("hello")
	if !strings.Contains(out.String(), "DBG") || strings.HasPrefix(out.String(), "{") {
		t.Errorf("console output %q", out.String())
	}
	if _, err := New(&out, "loud", "json"); err == nil {
		t.Error("bad level accepted")
	}
	if _, err := New(&out, "info", "xml"); err == nil {
		t.Error("bad format accepted")
	}
}
