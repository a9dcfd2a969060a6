package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// runMainEnv makes the test binary run moonbridge's main instead of the tests, so that a test
// can start moonbridge as a process of its own and send it signals.
const runMainEnv = "MOONBRIDGE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// moonbridgeProcess is moonbridge started from the test binary, with its JSON log lines.
type moonbridgeProcess struct {
	cmd   *exec.Cmd
	lines chan logLine
}

type logLine struct {
	Level, Message, Addr string
	Ended, Closed        int // of the drain's last line
}

// startMoonbridge runs `moonbridge ARGS...` as a process; the test's end kills it if it still runs.
func startMoonbridge(t *testing.T, args ...string) *moonbridgeProcess {
	t.Helper()
	cmd := testutil.Reexec(args, runMainEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &moonbridgeProcess{cmd: cmd, lines: make(chan logLine, 64)}
	go p.readLog(stderr)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return p
}

func (p *moonbridgeProcess) readLog(r io.Reader) {
	defer close(p.lines)
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		var line logLine
		if json.Unmarshal(scanner.Bytes(), &line) == nil {
			p.lines <- line
		}
	}
}

// waitFor returns the first log line whose message starts with prefix.
func (p *moonbridgeProcess) waitFor(t *testing.T, prefix string) logLine {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("moonbridge ended its log before %q: %v", prefix, p.cmd.Wait())
			}
			if strings.HasPrefix(line.Message, prefix) {
				return line
			}
		case <-timeout:
			t.Fatalf("no log line %q within 15s", prefix)
		}
	}
}

// SIGHUP must never end the process, also when no listener serves wss and there are no
// certificates to reload (issue 13, defect 2: it exited with status 129).
func TestHangupKeepsServingWithoutWSS(t *testing.T) {
	for _, tc := range []struct {
		protocol, listening string
		serving             func(t *testing.T, addr string)
	}{
		{"minecraft", " for Minecraft: ", answersStatusPing},
		{"ws", " for ws: ", answersHTTP},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "moonbridge.yml")
			writeFile(t, file, []byte("log: {format: json}\nlisteners:\n  - listen: 127.0.0.1:0\n    protocols: ["+
				tc.protocol+"]\nroutes:\n  - hosts: ['*']\n    backends: ['127.0.0.1:1']\n"))
			p := startMoonbridge(t, "serve", "--config", file)
			line := p.waitFor(t, "Listening on ")
			if !strings.Contains(line.Message, tc.listening) {
				t.Errorf("startup line %q, want one with %q", line.Message, tc.listening)
			}
			addr := line.Addr
			for range 2 {
				if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				p.waitFor(t, "SIGHUP: configuration reloaded")
			}
			tc.serving(t, addr)
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := p.cmd.Wait(); err != nil {
				t.Errorf("after SIGHUP and SIGTERM moonbridge ended with %v, want exit status 0", err)
			}
		})
	}
}

// statusPing is a server-list ping's first bytes: the handshake (length 16, id 0, protocol 767,
// host "localhost", port 25565, next state status) and the status request (length 1, id 0),
// written out so that these tests do not depend on the wire package.
func statusPing() []byte {
	ping := append([]byte{16, 0x00, 0xff, 0x05, 9}, "localhost"...)
	return append(ping, 0x63, 0xdd, 0x01, 1, 0x00)
}

// answersStatusPing sends a server-list ping and waits for the fallback's status answer.
func answersStatusPing(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(statusPing()); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 4096)
	for !strings.Contains(string(got), `"moonbridge"`) {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("status ping: %v after %q", err, got)
		}
	}
}

// answersHTTP checks that the ws listener answers an HTTP request (with the landing page, the
// default for a request that is not an upgrade).
func answersHTTP(t *testing.T, addr string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr + "/mc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("a plain GET on the ws path got %s (%s), want the landing page", resp.Status, resp.Header.Get("Content-Type"))
	}
}
