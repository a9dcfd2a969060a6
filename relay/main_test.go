package relay

import (
	"fmt"
	"os"
	"testing"
)

// TestMain fails the package when any relay buffer is still held after every test ran and every
// test server closed: a path that forgets to give one back leaks 64 KiB per session.
func TestMain(m *testing.M) {
	code := m.Run()
	if held := batchesOut(); code == 0 && held != 0 {
		fmt.Fprintf(os.Stderr, "relay: %d buffer(s) still held after the tests (a leak)\n", held)
		code = 1
	}
	os.Exit(code)
}
