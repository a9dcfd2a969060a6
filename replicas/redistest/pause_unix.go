//go:build unix

package redistest

import (
	"os"
	"syscall"
)

// pause stops p with SIGSTOP.
func pause(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }
