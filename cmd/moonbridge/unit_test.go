package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// The packaged systemd unit does what README says on reload, upgrade and stop: SIGHUP reloads,
// systemd follows the new main process of an upgrade (Type=notify, MAINPID from a process that is
// not the main one yet), a stop reaches an old process still serving what stayed, SIGTERM
// drains, and systemd waits long enough for the default drain before it sends SIGKILL.
func TestSystemdUnitMatchesDrainReloadAndUpgrade(t *testing.T) {
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
	for key, want := range map[string]string{"Type": "notify", "NotifyAccess": "all", "KillMode": "control-group"} {
		if unit[key] != want {
			t.Errorf("%s=%s, want %s", key, unit[key], want)
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

// The package's postinst upgrades a running proxy in place when its status says SIGUSR2 does
// (the proxy, a sleep here, gets SIGUSR2), and restarts an older one; systemctl is a stand-in
// that writes down how it was called.
func TestPostinstallUpgradesInPlaceOrRestarts(t *testing.T) {
	for _, tc := range []struct {
		name, status, calls string
		signalled           bool
	}{
		{"upgradable", "serving; SIGHUP reloads the config, SIGUSR2 upgrades", "", true},
		{"older proxy", "", "systemctl try-restart moonbridge.service\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := exec.Command("sleep", "30")
			if err := proxy.Start(); err != nil {
				t.Fatal(err)
			}
			defer proxy.Process.Kill()
			dir := t.TempDir()
			calls := filepath.Join(dir, "calls")
			stub := func(name, body string) {
				writeFile(t, filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"))
				os.Chmod(filepath.Join(dir, name), 0o755)
			}
			stub("systemctl", fmt.Sprintf(`case "$*" in
  *StatusText*) echo '%s' ;;
  *MainPID*) echo %d ;;
  daemon-reload) ;;
  *) echo "systemctl $*" >>%s ;;
esac`, tc.status, proxy.Process.Pid, calls))
			stub("systemd-sysusers", "")
			cmd := exec.Command("sh", filepath.Join("..", "..", "packaging", "linux", "postinstall.sh"), "configure", "0.9.0")
			cmd.Env = append(os.Environ(), "PATH="+dir+":/usr/bin:/bin", "MOONBRIDGE_SYSTEMD_DIR="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("postinstall.sh: %v\n%s", err, out)
			}
			if got, _ := os.ReadFile(calls); string(got) != tc.calls {
				t.Errorf("postinstall.sh called %q, want %q", got, tc.calls)
			}
			proxy.Process.Signal(syscall.SIGTERM)
			err := proxy.Wait()
			if got := strings.Contains(fmt.Sprint(err), "user defined signal 2"); got != tc.signalled {
				t.Errorf("the running proxy ended with %v; SIGUSR2 sent: %v, want %v", err, got, tc.signalled)
			}
		})
	}
}
