package testutil

import (
	"net"
	"testing"
)

// ClosedPort is a loopback address nobody listens on, for a backend that is down.
func ClosedPort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
