package netns

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// runDir is where ip keeps a handle of each named namespace.
const runDir = "/run/netns"

// Do runs f on an OS thread that has entered the namespace and returns f's error. Sockets f
// opens (net.Listen, net.Dial: Go opens them on the calling thread) and devices such as a TUN
// belong to the namespace for their whole life. The thread is never given back to the
// scheduler: it exits with Do's goroutine, so no other goroutine runs in the namespace by
// accident. A goroutine f starts runs on other threads, in this process's own namespace.
func (n *NS) Do(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread ends with this goroutine
		if err := enter(n.Name); err != nil {
			errc <- err
			return
		}
		errc <- f()
	}()
	return <-errc
}

func enter(name string) error {
	h, err := os.Open(filepath.Join(runDir, name))
	if err != nil {
		return fmt.Errorf("netns %s: %w", name, err)
	}
	defer h.Close()
	if err := unix.Setns(int(h.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("netns %s: setns: %w", name, err)
	}
	return nil
}
