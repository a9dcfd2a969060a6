package testutil

import (
	"net"
	"sync"
	"testing"
)

// ClosedPort is a loopback address nobody listens on: a connect to it is refused.
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

// Serve listens on a loopback port and runs serve on a goroutine for every connection it
// accepts; when the test ends it closes the listener and waits for every serve to return.
func Serve(t testing.TB, serve func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); serve(conn) }()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln
}
