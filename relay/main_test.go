package relay

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
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

// dataPathEnv makes a test process run the package on that one data path.
const dataPathEnv = "MOONBRIDGE_TEST_DATA_PATH"

// TestMain runs the tests on each data path, then fails the package when anything an ended
// session held is still there after every test ran and every test server closed: a relay
// buffer (a path that forgets one leaks 64 KiB per session), a goroutine or a descriptor.
// The first data path runs in this process and each other one in a child process at the same
// time (most tests wait on sockets and timers, not on the CPU); a child's output follows this
// process's, as if the paths had run one after the other.
func TestMain(m *testing.M) {
	if addr := os.Getenv(wakeHelperAddr); addr != "" {
		os.Exit(runWakeHelper(addr)) // a server the wake tests start and stop (wake_test.go)
	}
	paths := testDataPaths()
	if path := os.Getenv(dataPathEnv); path != "" {
		paths = []DataPath{DataPath(path)}
	}
	children, err := startDataPathChildren(paths[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "relay: %v\n", err)
		os.Exit(1)
	}
	code := runDataPath(m, paths[0])
	for _, c := range children {
		if c := c.finish(); c != 0 {
			code = c
		}
	}
	os.Exit(code)
}

// runDataPath runs the package's tests on path and checks what they left behind.
func runDataPath(m *testing.M, path DataPath) int {
	before := takeCensus()
	testDataPath = path
	fmt.Fprintf(os.Stderr, "=== data path %s\n", path) // stdout is a child test process's to talk on
	code := m.Run()
	if err := before.leftBehind(); err != nil && code == 0 {
		fmt.Fprintf(os.Stderr, "relay, data path %s: %v\n", path, err)
		code = 1
	}
	return code
}

// dataPathChild is this test binary run again on one data path; its stdout goes to a file
// (not a pipe, which would hold a goroutine and a descriptor in the census of this process).
type dataPathChild struct {
	cmd *exec.Cmd
	out *os.File
}

func startDataPathChildren(paths []DataPath) ([]dataPathChild, error) {
	var children []dataPathChild
	for _, path := range paths {
		out, err := os.CreateTemp("", "relay-test-"+string(path)+"-")
		if err != nil {
			return nil, err
		}
		os.Remove(out.Name())
		cmd := testutil.Reexec(os.Args[1:], dataPathEnv+"="+string(path))
		cmd.Stdout, cmd.Stderr = out, os.Stderr
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("data path %s: %w", path, err)
		}
		children = append(children, dataPathChild{cmd: cmd, out: out})
	}
	return children, nil
}

// finish waits for the child, copies its output to stdout and returns its exit code.
func (c dataPathChild) finish() int {
	err := c.cmd.Wait()
	c.out.Seek(0, io.SeekStart)
	io.Copy(os.Stdout, c.out)
	c.out.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "relay: %v\n", err)
		return 1
	}
	return 0
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
