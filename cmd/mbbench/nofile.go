package main

import (
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/internal/nofile"
)

// raiseNoFile lifts the soft RLIMIT_NOFILE to the hard limit, and both to want when want is
// above the hard limit and this process may raise it (root, CAP_SYS_RESOURCE). Every ladder
// session holds two descriptors here (the player's end and the fake backend's). The line it
// logs says what the ladder got; it returns the soft limit.
func raiseNoFile(want uint64, log io.Writer) (uint64, error) {
	lim, err := nofile.Raise(want)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(log, "# RLIMIT_NOFILE soft %d hard %d (was %d/%d); the largest step needs %d\n", lim.Soft, lim.Hard, lim.WasSoft, lim.WasHard, want)
	return lim.Soft, nil
}
