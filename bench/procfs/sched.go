package procfs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sched is what the scheduler counted for a process's threads: how often they were switched off
// a CPU (voluntarily, to sleep, or not) and how often they moved from one CPU to another. An
// event loop that sleeps in epoll_wait and is woken by a packet from another core pays a switch
// per wake; a thread that wakes on another core than it slept on also migrates.
type Sched struct {
	Switches   uint64 // nr_switches, summed over the threads
	Migrations uint64 // se.nr_migrations, summed over the threads
}

// ErrNoSched: the kernel has no /proc/PID/task/TID/sched (it needs CONFIG_SCHED_DEBUG).
var ErrNoSched = errors.New("procfs: no per-thread sched file on this kernel")

// processSched sums Sched over pid's threads (the process only, not its children).
func processSched(pid int) (Sched, error) {
	var total Sched
	read, err := eachTask(pid, "sched", func(text string) error {
		s, err := ParseSched(text)
		total.Switches += s.Switches
		total.Migrations += s.Migrations
		return err
	})
	if err == nil && read == 0 {
		err = ErrNoSched
	}
	return total, err
}

// ParseSched reads nr_switches and se.nr_migrations from one thread's sched file
// ("name   :   value" lines after a header).
func ParseSched(text string) (Sched, error) {
	var s Sched
	found := 0
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst *uint64
		switch strings.TrimSpace(name) {
		case "nr_switches":
			dst = &s.Switches
		case "se.nr_migrations":
			dst = &s.Migrations
		default:
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return s, &ParseError{File: "sched", Reason: fmt.Sprintf("%s is not a count: %q", strings.TrimSpace(name), strings.TrimSpace(value))}
		}
		*dst = v
		found++
	}
	if found != 2 {
		return s, &ParseError{File: "sched", Reason: "want nr_switches and se.nr_migrations"}
	}
	return s, nil
}
