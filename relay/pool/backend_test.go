package pool

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

func TestDialErrorNamesEachBackend(t *testing.T) {
	err := &DialError{Failures: []BackendFailure{
		{Addr: "10.0.0.1:25565", Err: ErrBackendDown},
		{Addr: "10.0.0.2:25565", Err: syscall.ECONNREFUSED},
	}}
	want := "no backend reachable: 10.0.0.1:25565: skipped: health check says down; 10.0.0.2:25565: connection refused"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(err, ErrBackendDown) {
		t.Error("errors.Is does not see the failures")
	}
	if got := (&DialError{}).Error(); got != "no backend reachable: route has no backends" {
		t.Errorf("no failures: %s", got)
	}
}

func TestDialFailureReasons(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&PreambleError{Err: syscall.ECONNRESET}, dialPreamble},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, dialRefused},
		{&net.OpError{Op: "dial", Err: syscall.EHOSTUNREACH}, dialUnreachable},
		{&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", IsNotFound: true}}, dialUnreachable},
		{&net.OpError{Op: "dial", Err: &timeoutError{}}, dialTimeout},
		{errors.New("something else"), dialOther},
	} {
		if got := dialFailureReason(c.err); got != c.want {
			t.Errorf("dialFailureReason(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
