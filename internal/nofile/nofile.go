// Package nofile raises the limit on open file descriptors (RLIMIT_NOFILE), which every socket
// counts against: the proxy needs two per session, the benchmark's load generator more.
package nofile

import "errors"

// Limits are the soft and hard limits now, and what they were before Raise.
type Limits struct {
	Soft, Hard       uint64
	WasSoft, WasHard uint64
}

// ErrUnsupported is Raise's error where the system has no RLIMIT_NOFILE (Windows; other systems are not built for).
var ErrUnsupported = errors.New("RLIMIT_NOFILE is not supported on this system")
