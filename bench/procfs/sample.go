package procfs

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Sample is one reading of a process and of the host's TCP counter.
type Sample struct {
	CPU     time.Duration // user + system time of the process, its threads and live descendants
	RSSKiB  int64         // the process itself (forked children share pages; summing them would overcount)
	Threads int64         // of the process itself
	OutSegs uint64        // host-wide (this network namespace), ACKs included
	Sched   Sched         // of the process itself; zero when the kernel does not say (HasSched)
	// HasSched says whether Sched was read (the kernel has per-thread sched files).
	HasSched bool
}

// Take reads pid's CPU and RSS and the host's OutSegs; with pid 0 only OutSegs.
func Take(pid int) (Sample, error) {
	var s Sample
	snmp, err := readProc("/proc/net/snmp")
	if err != nil {
		return s, err
	}
	if s.OutSegs, err = ParseOutSegs(snmp); err != nil || pid == 0 {
		return s, err
	}
	if s.CPU, err = TreeCPU(pid); err != nil {
		return s, err
	}
	status, err := readProc(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	if s.RSSKiB, err = ParseVmRSSKiB(status); err != nil {
		return s, err
	}
	if s.Threads, err = ParseThreads(status); err != nil {
		return s, err
	}
	s.Sched, err = processSched(pid)
	if errors.Is(err, ErrNoSched) {
		return s, nil
	}
	s.HasSched = err == nil
	return s, err
}

// SelfCPU is the user + system time of this process's threads (not of its children, such as a
// moonbridge it started), from getrusage: microsecond resolution, where /proc's stat counts
// 10 ms ticks.
func SelfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
