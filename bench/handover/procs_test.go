package handover

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// startSleep is a child process to follow; the test's cleanup reaps it.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Start returns once the exec has begun; the kernel shows the new arguments a moment later
	// (an empty cmdline meanwhile), which a loaded machine makes long enough to see.
	testutil.WaitFor(t, "sleep's arguments in /proc", func() bool { return runs(cmd.Process.Pid, []string{"30"}) })
	return cmd
}

// A process that exited and was not reaped yet (an old moonbridge whose parent is gone) has
// exited: the harness must not wait for it, nor fail reading its memory.
func TestGoneSeesAZombieAndRSSOfAVanishedPIDIsZero(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	if gone(pid) || rssKiB(pid) <= 0 {
		t.Fatalf("running pid %d: gone %v, RSS %d KiB", pid, gone(pid), rssKiB(pid))
	}
	syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for !gone(pid) { // a zombie until the cleanup reaps it
		if time.Now().After(deadline) {
			t.Fatalf("pid %d killed, not gone after 5 s", pid)
		}
		time.Sleep(pollEvery)
	}
	if rss := rssKiB(pid); rss != 0 {
		t.Errorf("RSS of a zombie: %d KiB, want 0", rss)
	}
	cmd.Wait()
	if !gone(pid) || rssKiB(pid) != 0 {
		t.Errorf("reaped pid %d: gone %v, RSS %d", pid, gone(pid), rssKiB(pid))
	}
}

// upgrade signals the process serving, reads its hand-over line (the new process's count may
// come before it) and follows the old process to its exit.
func TestUpgradeFollowsTheNewPIDAndTheOldProcesssExit(t *testing.T) {
	cmd := startSleep(t) // SIGUSR2 ends it, as an old process ends after its hand-over
	lines := make(chan line, 4)
	readLines(strings.NewReader(takenLine+"\n"+handedLine+"\n"), new(strings.Builder), lines, func(line) {})
	up, err := upgrade(context.Background(), Config{HandedTimeout: 5 * time.Second}, cmd.Process.Pid, lines)
	if err != nil {
		t.Fatal(err)
	}
	if up.NewPID != 28792 || up.Moved != 40 || up.Taken != 40 || up.Stayed != 10 || up.Failed != "" {
		t.Errorf("upgrade read as %+v", up)
	}
	ups := []Upgrade{up}
	waitExits(context.Background(), ups, 5*time.Second)
	if ups[0].ExitS < 0 || ups[0].ExitS > 5 {
		t.Errorf("exit after %.3f s, want the old process's exit within 5 s", ups[0].ExitS)
	}
}

func TestUpgradeSaysWhenItFailedOrNoLineCame(t *testing.T) {
	cmd := startSleep(t)
	lines := make(chan line, 1)
	readLines(strings.NewReader(failedLine+"\n"), new(strings.Builder), lines, func(line) {})
	up, err := upgrade(context.Background(), Config{HandedTimeout: 5 * time.Second}, cmd.Process.Pid, lines)
	if err != nil || !strings.Contains(up.Failed, "not ready within upgrade.timeout") {
		t.Errorf("failed upgrade: %+v, %v", up, err)
	}
	cmd = startSleep(t)
	_, err = upgrade(context.Background(), Config{HandedTimeout: 50 * time.Millisecond}, cmd.Process.Pid, make(chan line))
	if !errors.Is(err, ErrNoHandOver) {
		t.Errorf("no line: %v, want ErrNoHandOver", err)
	}
}

// In upgrades in a row, an older process whose successor handed over in turn and exited says
// its new process has ended; that line, queued before the next signal's, is not that signal's
// outcome: the upgrade goes on to its own hand-over line.
func TestUpgradeIsNotFailedByAnOlderProcesssLostLine(t *testing.T) {
	cmd := startSleep(t)
	const lost = `{"level":"error","new_pid":16572,"error":"exit status 0","message":"upgrade: the new process has ended, so nobody accepts on the listeners; draining, then exiting with an error to be restarted"}`
	lines := make(chan line, 4)
	readLines(strings.NewReader(lost+"\n"+takenLine+"\n"+handedLine+"\n"), new(strings.Builder), lines, func(line) {})
	up, err := upgrade(context.Background(), Config{HandedTimeout: 5 * time.Second}, cmd.Process.Pid, lines)
	if err != nil || up.Failed != "" || up.NewPID != 28792 || up.Taken != 40 {
		t.Errorf("upgrade after an older process's lost line: %+v, %v", up, err)
	}
}

// stop ends a process of the run only: a pid whose arguments are not the run's (the kernel may
// have given an exited moonbridge's pid to another process) is left alone.
func TestStopEndsOnlyAProcessWithTheRunsArguments(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	if err := stop(pid, []string{"31"}); err != nil || gone(pid) {
		t.Fatalf("stop with other arguments: %v, gone %v; want it left running", err, gone(pid))
	}
	if err := stop(pid, []string{"30"}); err != nil || !gone(pid) {
		t.Errorf("stop with its arguments: %v, gone %v; want it stopped", err, gone(pid))
	}
}
