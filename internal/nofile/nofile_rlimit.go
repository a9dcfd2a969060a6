//go:build linux || darwin

package nofile

import (
	"fmt"
	"syscall"
)

// Raise lifts the soft limit to the hard one, and both to want when want is above the hard
// limit and the process may raise it (root, CAP_SYS_RESOURCE; otherwise the hard limit stays).
// Go's runtime already lifts the soft limit to the hard one at start on Unix (since Go 1.19),
// so without a want above it Raise usually finds nothing to do: it makes sure, and tells.
func Raise(want uint64) (Limits, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return Limits{}, fmt.Errorf("RLIMIT_NOFILE: %w", err)
	}
	out := Limits{WasSoft: uint64(lim.Cur), WasHard: uint64(lim.Max)}
	if want > uint64(lim.Max) {
		raised := syscall.Rlimit{Cur: want, Max: want}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return Limits{}, fmt.Errorf("raising RLIMIT_NOFILE to %d: %w", lim.Max, err)
		}
	}
	out.Soft, out.Hard = uint64(lim.Cur), uint64(lim.Max)
	return out, nil
}
