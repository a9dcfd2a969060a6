//go:build !unix

package redistest

import (
	"errors"
	"os"
)

// pause has no SIGSTOP to send here: the test that needs a hanging Redis fails with this.
func pause(*os.Process) error { return errors.New("no SIGSTOP on this system") }
