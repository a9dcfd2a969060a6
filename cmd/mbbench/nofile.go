package main

import (
	"fmt"
	"io"
	"syscall"
)

// raiseNoFile lifts the soft RLIMIT_NOFILE to the hard limit, and both to want when want is
// above the hard limit and this process may raise it (root, CAP_SYS_RESOURCE). Every ladder
// session holds two descriptors here (the player's end and the fake backend's). The line it
// logs says what the ladder got; it returns the soft limit.
func raiseNoFile(want uint64, log io.Writer) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("RLIMIT_NOFILE: %w", err)
	}
	was := lim
	if want > lim.Max {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: want, Max: want}); err == nil {
			lim = syscall.Rlimit{Cur: want, Max: want}
		}
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return 0, fmt.Errorf("raising RLIMIT_NOFILE to %d: %w", lim.Max, err)
		}
	}
	fmt.Fprintf(log, "# RLIMIT_NOFILE soft %d hard %d (was %d/%d); the largest step needs %d\n", lim.Cur, lim.Max, was.Cur, was.Max, want)
	return lim.Cur, nil
}
