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
	var total time.Duration
	_, err := eachTask(pid, "schedstat", func(text string) error {
		ns, err := ParseSchedstat(text)
		total += ns
		return err
	})
	return total, err
}

// eachTask runs each on the text of file in every thread's /proc/PID/task/TID directory and
// says how many it read; a thread that exits since the listing is skipped, as is one whose
// file the kernel does not have.
func eachTask(pid int, file string, each func(text string) error) (read int, err error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("%w: %s", ErrNoProcess, dir)
	}
	if err != nil {
		return 0, err
	}
	for _, t := range tasks {
		text, err := readProc(dir + "/" + t.Name() + "/" + file)
		if err != nil {
			continue
		}
		if err := each(text); err != nil {
			return read, err
		}
		read++
	}
	return read, nil
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
