package relay

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/rs/zerolog"
)

// emfileChildEnv makes the test binary run a proxy with few descriptors instead of the test.
const emfileChildEnv = "RELAY_TEST_EMFILE_CHILD"

// Issue 13, defect 1, as it happened: with a low descriptor limit, idle connections make accept
// fail with EMFILE. Once they are gone, a new player must be served. The proxy runs in a child
// process (this test binary, re-run), so that the low limit does not touch the other tests.
func TestAcceptSurvivesRunningOutOfDescriptors(t *testing.T) {
	if os.Getenv(emfileChildEnv) == "1" {
		runLowLimitProxy(t)
		return
	}
	child := testutil.Reexec([]string{"-test.run=^TestAcceptSurvivesRunningOutOfDescriptors$"}, emfileChildEnv+"=1")
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	stderr, _ := child.StderrPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); child.Process.Kill(); child.Wait() }()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the child proxy said no address: %v", err)
	}
	addr = strings.TrimSpace(addr)
	retrying := make(chan struct{})
	go watchFor(stderr, "accept failed", retrying)

	var idle []net.Conn
	for range 200 {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			break // the backlog is full: enough
		}
		idle = append(idle, conn)
	}
	select {
	case <-retrying:
	case <-time.After(20 * time.Second):
		t.Fatalf("%d idle connections did not make accept fail", len(idle))
	}
	for _, c := range idle {
		c.Close()
	}
	answersStatus(t, addr)
}

// runLowLimitProxy serves Minecraft with 64 descriptors, prints its address and runs until its
// stdin closes.
func runLowLimitProxy(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{
		Listeners: []Listener{{Addr: "127.0.0.1:0", Protocols: []Protocol{Minecraft}}},
		Routes:    routeTo("127.0.0.1:1"),
		Fallback:  DefaultFallback(),
		Limits:    Limits{HandshakeTimeout: time.Minute},
		Logger:    zerolog.New(os.Stderr),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fmt.Println(srv.Addrs()[0])
	io.Copy(io.Discard, os.Stdin)
}

// watchFor closes found when a line of r contains text, and reads r to its end.
func watchFor(r io.Reader, text string, found chan struct{}) {
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		if found != nil && strings.Contains(scanner.Text(), text) {
			close(found)
			found = nil
		}
	}
}

// answersStatus sends a server-list ping and waits (at most 15 s) for the fallback's answer.
func answersStatus(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(15 * time.Second))
	conn.Write(append(handshakeFrame("localhost", 1), 1, 0))
	var got []byte
	buf := make([]byte, 4096)
	for !strings.Contains(string(got), `"moonbridge"`) {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("a new player after the descriptors came back got %q (%v), want the status answer", got, err)
		}
	}
}
