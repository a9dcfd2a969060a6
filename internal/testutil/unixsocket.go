package testutil

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// UnixListener listens on a unix socket in a new directory that the test's end removes. The
// directory is under os.TempDir, not t.TempDir: a socket's path has 108 bytes at most, and a
// test's temporary directory carries the test's name.
func UnixListener(t testing.TB) (ln net.Listener, path string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "mbsock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path = filepath.Join(dir, "api.sock")
	ln, err = net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	return ln, path
}
