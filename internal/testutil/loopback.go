package testutil

import (
	"net"
	"sync"
	"testing"

	"github.com/moonbridge/moonbridge/internal/freeport"
)

// Serve listens on a loopback port and runs serve on a goroutine for every connection it
// accepts; when the test ends it closes the listener and every connection still open, and
// waits for every serve to return.
func Serve(t testing.TB, serve func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := ServeAt(t, "127.0.0.1:0", serve)
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// ServeAt is Serve on addr; it returns the listen error instead of failing the test, so that
// it can be called from a goroutine other than the test's (a server started later, on demand).
func ServeAt(t testing.TB, addr string, serve func(net.Conn)) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	var open sync.Map // net.Conn -> struct{}: closed at the end, so a serve blocked on its peer returns
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			open.Store(conn, struct{}{})
			wg.Add(1)
			go func() { defer wg.Done(); defer open.Delete(conn); serve(conn) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		open.Range(func(c, _ any) bool { c.(net.Conn).Close(); return true })
		wg.Wait()
	})
	return ln, nil
}

// FreePort is a loopback address that was free a moment ago, for a test that starts a listener
// on it through something that takes an address (a command's flag), drawn where the kernel
// hands out no port by itself (internal/freeport); where nothing must listen, use ClosedPort.
func FreePort(t testing.TB) string {
	t.Helper()
	addr, err := freeport.Loopback()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}
