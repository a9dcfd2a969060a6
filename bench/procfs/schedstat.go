package procfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// processCPU is the time pid's threads have spent on a CPU, summed over
// /proc/PID/task/TID/schedstat: the scheduler's own clock, in nanoseconds, where
// /proc/PID/stat's utime and stime count 10 ms ticks (a 1 s phase of a relay at 20% of a core
// is 20 of them). A thread that exits during a phase takes its time with it (relays keep their
// threads: Go's, HAProxy's, V2Ray's).
func processCPU(pid int) (time.Duration, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("%w: %s", ErrNoProcess, dir)
	}
	if err != nil {
		return 0, err
	}
	var total time.Duration
	for _, t := range tasks {
		text, err := readProc(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited since the listing
		}
		ns, err := ParseSchedstat(text)
		if err != nil {
			return 0, err
		}
		total += ns
	}
	return total, nil
}

// ParseSchedstat reads the time on CPU, the first of schedstat's three fields (nanoseconds).
func ParseSchedstat(text string) (time.Duration, error) {
	fields := strings.Fields(text)
	if len(fields) != 3 {
		return 0, &ParseError{File: "schedstat", Reason: fmt.Sprintf("%d fields, want 3", len(fields))}
	}
	ns, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil || ns < 0 {
		return 0, &ParseError{File: "schedstat", Reason: "time on CPU is not a count: " + strconv.Quote(fields[0])}
	}
	return time.Duration(ns), nil
}
