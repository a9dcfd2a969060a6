//go:build unix

package config

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO as an icon is refused before it is opened (the open would wait for a writer), by the
// reader and by the config's validation.
func TestIconFIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIcon(fifo); !errors.Is(err, ErrIcon) || !strings.Contains(err.Error(), fifo) {
		t.Errorf("ReadIcon: %v, want ErrIcon naming the file", err)
	}
	_, err := Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\"]\n    status:\n      icon: "+fifo+"\n"), noEnv)
	if err == nil || !strings.Contains(err.Error(), "routes[0].status.icon") {
		t.Errorf("config: %v, want an error naming routes[0].status.icon", err)
	}
}
