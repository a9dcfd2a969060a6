package handover

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/moonbridge/moonbridge/bench/procfs"
)

// How often a process's exit is looked for, and how long a stopped one may take to exit.
const (
	pollEvery   = 10 * time.Millisecond
	stopTimeout = 15 * time.Second
)

// gone says whether pid has exited: no /proc entry, or a zombie nobody reaped yet (an old
// process that is not mbbench's child: its parent, an older old process, exited before it).
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	return end < 0 || strings.HasPrefix(strings.TrimSpace(s[end+1:]), "Z")
}

// rssKiB is pid's resident memory now; 0 once it has exited.
func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	kib, err := procfs.ParseVmRSSKiB(string(b))
	if err != nil {
		return 0
	}
	return kib
}

// exitWatch follows one old process until it exits or ctx ends.
type exitWatch struct {
	done  chan struct{}
	after time.Duration // from since to the exit; set before done closes, unless ctx ended
	seen  bool
}

func watchExit(ctx context.Context, pid int, since time.Time) *exitWatch {
	w := &exitWatch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
		for !gone(pid) {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		w.after, w.seen = time.Since(since), true
	}()
	return w
}

// errNotStopped is a process that outlived SIGTERM by stopTimeout, then was killed.
var errNotStopped = errors.New("did not exit within the stop timeout of SIGTERM; killed")

// runs says whether pid is a process of this run: its arguments after the binary's path are
// args (the run's own --listen and --config among them; an upgrade starts its new process with
// the same), so that a pid the kernel gave to another process since is left alone.
func runs(pid int, args []string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	fields := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	return len(fields) > 0 && slices.Equal(fields[1:], args)
}

// stop sends SIGTERM to pid, a process of the run with args, and waits for its exit, killing
// it after stopTimeout.
func stop(pid int, args []string) error {
	if gone(pid) || !runs(pid, args) {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pid %d: %w", pid, err)
	}
	deadline := time.Now().Add(stopTimeout)
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			return fmt.Errorf("pid %d: %w", pid, errNotStopped)
		}
		time.Sleep(pollEvery)
	}
	return nil
}
