//go:build !unix

package testutil

import "testing"

// ClosedPort is a loopback address where nothing listens: here a FreePort (on unix it is held
// for the test's length, closedport_unix.go; here another listener could be given it meanwhile).
func ClosedPort(t testing.TB) string {
	t.Helper()
	return FreePort(t)
}
