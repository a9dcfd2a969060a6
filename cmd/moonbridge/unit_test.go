package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// The packaged systemd unit does what README says on reload and stop: SIGHUP reloads, SIGTERM
// drains, and systemd waits long enough for the default drain before it sends SIGKILL.
func TestSystemdUnitMatchesDrainAndReload(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "packaging", "linux", "moonbridge.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if key, value, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			unit[key] = value
		}
	}
	if got := unit["ExecReload"]; got != "/bin/kill -HUP $MAINPID" {
		t.Errorf("ExecReload=%s, want /bin/kill -HUP $MAINPID", got)
	}
	if got := unit["KillSignal"]; got != "SIGTERM" {
		t.Errorf("KillSignal=%s, want SIGTERM", got)
	}
	stop, err := time.ParseDuration(unit["TimeoutStopSec"])
	const margin = 10 * time.Second // the drain's end, closing the rest, exiting
	if drain := config.Default().Shutdown.DrainTimeout; err != nil || stop < drain+margin {
		t.Errorf("TimeoutStopSec=%s (%v), want at least the default drain_timeout %v + %v", unit["TimeoutStopSec"], err, drain, margin)
	}
}
