package backend

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

// TestHangupsAreNotBadTraffic: every way a client's leaving reaches the backend ends the session
// without counting a failure; anything else counts.
func TestHangupsAreNotBadTraffic(t *testing.T) {
	write := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	for _, err := range []error{io.EOF, net.ErrClosed, syscall.ECONNRESET, write} {
		if !isHangup(err) {
			t.Errorf("%v is not a hangup", err)
		}
	}
	if isHangup(errors.New("bad frame")) {
		t.Error("a bad frame is a hangup")
	}
}
