//go:build unix

package testutil

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// ClosedPort is a loopback address where nothing listens, until the test ends: a dial there is
// refused. The port is held by a socket bound to it without listening, so no listener that
// the test (or anything else on the machine) starts meanwhile can be given it; a port that was
// listened on and closed could be, and a test's "dead backend" would then be a live one.
func ClosedPort(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}
