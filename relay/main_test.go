package relay

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/loop"
)

// testDataPath is the data path of the servers startProxy runs. TestMain runs every test of
// the package once per data path this system has: the event loops and the goroutines.
var testDataPath DataPath

func testDataPaths() []DataPath {
	if loop.Supported {
		return []DataPath{DataPathLoop, DataPathGoroutines}
	}
	return []DataPath{DataPathGoroutines}
}

// TestMain runs the tests on each data path, then fails the package when anything an ended
// session held is still there after every test ran and every test server closed: a relay
// buffer (a path that forgets one leaks 64 KiB per session), a goroutine or a descriptor.
func TestMain(m *testing.M) {
	if addr := os.Getenv(wakeHelperAddr); addr != "" {
		os.Exit(runWakeHelper(addr)) // a server the wake tests start and stop (wake_test.go)
	}
	before := takeCensus()
	code := 0
	for _, path := range testDataPaths() {
		testDataPath = path
		fmt.Fprintf(os.Stderr, "=== data path %s\n", path) // stdout is a child test process's to talk on
		if c := m.Run(); c != 0 {
			code = c
		}
		if err := before.leftBehind(); err != nil && code == 0 {
			fmt.Fprintf(os.Stderr, "relay, data path %s: %v\n", path, err)
			code = 1
		}
	}
	os.Exit(code)
}

// census is what the process holds: goroutines and open descriptors.
type census struct{ goroutines, fds int }

// takeCensus counts after starting Go's network poller, whose descriptors stay open for good.
func takeCensus() census {
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	return census{goroutines: runtime.NumGoroutine(), fds: openFDs()}
}

// openFDs counts the process's descriptors (-1 where /proc/self/fd is not there).
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries) - 1 // ReadDir's own descriptor
}

// leftBehind waits up to 10 s for the process to be back to c, and says what is not.
func (c census) leftBehind() error {
	var now census
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		// Two collections empty sync.Pools, whose finalizers close what the pools cached
		// (net's splice pipes, which the test backends' io.Copy uses).
		runtime.GC()
		runtime.GC()
		now = takeCensus()
		if now.goroutines <= c.goroutines && now.fds <= c.fds && batchesOut() == 0 {
			return nil
		}
	}
	if held := batchesOut(); held != 0 {
		return fmt.Errorf("%d relay buffer(s) still held after the tests (a leak)", held)
	}
	if now.goroutines > c.goroutines {
		buf := make([]byte, 1<<20)
		return fmt.Errorf("%d goroutines before the tests, %d after:\n%s", c.goroutines, now.goroutines, buf[:runtime.Stack(buf, true)])
	}
	return fmt.Errorf("%d descriptors open before the tests, %d after: %v", c.fds, now.fds, fdTargets())
}

// fdTargets names the open descriptors, for the failure message.
func fdTargets() []string {
	entries, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range entries {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		out = append(out, e.Name()+"->"+target)
	}
	return out
}
