package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/boring"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// buildMoonbridge builds the real binary, stamped with version, into dir.
func buildMoonbridge(t *testing.T, dir, version string) string {
	t.Helper()
	out := filepath.Join(dir, "moonbridge-"+version)
	args := []string{"build", "-o", out}
	cgo := "CGO_ENABLED=0"
	if boring.Enabled { // the test's own flavour: wss sessions move only with BoringSSL
		args, cgo = append(args, "-tags", "boringssl"), "CGO_ENABLED=1"
	}
	args = append(args, "-ldflags", "-X github.com/moonbridge/moonbridge/cmd/internal/buildinfo.version="+version, ".")
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), cgo)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// install puts the file at from in place at path as a package manager does: a new file renamed
// over the old one, which a running process keeps as its deleted executable.
func install(t *testing.T, from, path string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".new", b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// upgradeLog reads the JSON lines of an old process and every process it starts, which all
// write to one pipe; it ends when the last of them has closed its end.
type upgradeLog struct {
	lines chan map[string]any
}

// startBinary runs `BINARY serve --config FILE` with its stderr on a pipe the processes it
// starts inherit (a copying goroutine would end with the test's Wait and leave them writing
// to a closed pipe).
func startBinary(t *testing.T, binary, file string, env ...string) (*exec.Cmd, *upgradeLog) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--config", file)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	l := &upgradeLog{lines: make(chan map[string]any, 1024)}
	go func() {
		defer close(l.lines)
		scanner := bufio.NewScanner(r)
		for scanner.Scan() {
			var line map[string]any
			if json.Unmarshal(scanner.Bytes(), &line) != nil { // a process's last words, not JSON
				line = map[string]any{"message": scanner.Text()}
			}
			l.lines <- line
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, l
}

// waitFor returns the first line whose message starts with prefix, within 30 s.
func (l *upgradeLog) waitFor(t *testing.T, prefix string) map[string]any {
	t.Helper()
	line, _ := l.waitCollecting(t, prefix)
	return line
}

// waitCollecting is waitFor that also returns the lines it passed over.
func (l *upgradeLog) waitCollecting(t *testing.T, prefix string) (map[string]any, []map[string]any) {
	t.Helper()
	var passed []map[string]any
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-l.lines:
			if !ok {
				t.Fatalf("every process ended its log before %q", prefix)
			}
			if os.Getenv("UPGRADE_DEBUG") != "" {
				t.Logf("log: %v", line)
			}
			if msg, _ := line["message"].(string); strings.HasPrefix(msg, prefix) {
				return line, passed
			}
			passed = append(passed, line)
		case <-timeout:
			t.Fatalf("no log line %q within 30s", prefix)
		}
	}
}

// notifySocket is a stand-in for systemd's NOTIFY_SOCKET: its path and what it receives.
func notifySocket(t *testing.T) (string, <-chan string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sock.Close() })
	states := make(chan string, 16)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := sock.Read(buf)
			if err != nil {
				return
			}
			states <- string(buf[:n])
		}
	}()
	return path, states
}

// mainPID waits for the next notification and returns the MAINPID it names, checking READY=1.
func mainPID(t *testing.T, states <-chan string) int {
	t.Helper()
	select {
	case state := <-states:
		var pid int
		for _, line := range strings.Split(state, "\n") {
			fmt.Sscanf(line, "MAINPID=%d", &pid)
		}
		if !strings.Contains(state, "READY=1") || !strings.Contains(state, "SIGUSR2") {
			t.Errorf("notification %q: want READY=1 and a status that names SIGUSR2", state)
		}
		return pid
	case <-time.After(30 * time.Second):
		t.Fatal("no notification within 30s")
	}
	return 0
}

// killOnEnd ends the process pid names at the test's end, if it still runs.
func killOnEnd(t *testing.T, pid int) {
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
}

func upgradeConfig(t *testing.T, tcp, wsAddr, admin, backend, extra string) string {
	t.Helper()
	return upgradeConfigRoutes(t, tcp, wsAddr, admin, fmt.Sprintf("  - hosts: ['*']\n    backends: [%s]\n", backend), extra)
}

// upgradeConfigRoutes is upgradeConfig's file with routes (YAML list items) for its routes.
func upgradeConfigRoutes(t *testing.T, tcp, wsAddr, admin, routes, extra string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "moonbridge.yml")
	writeFile(t, file, []byte(fmt.Sprintf(`log: {format: json}
admin: {listen: %s}
listeners:
  - {listen: %s, protocols: [minecraft]}
  - {listen: %s, protocols: [ws, wss]}
routes:
%sshutdown: {drain_timeout: 5s}
# A connect loop from one address: no rate limit may refuse it.
limits: {connection_rate_per_ip: 1e6, connection_burst_per_ip: 1000000, connection_rate_per_network: 1e6,
  connection_burst_per_network: 1000000, login_rate_per_network: 1e6, login_burst_per_network: 1000000}
defence: {block: {after: 0}, attack_mode: {enabled: false}}
%s`, admin, tcp, wsAddr, routes, extra)))
	return file
}

// oldProxy is a moonbridge started from the binary at path (the "v1.0.0-old" build) in front of
// an echo backend, with a Minecraft, a ws listener and the admin endpoint, waited for until it
// serves.
type oldProxy struct {
	cmd                        *exec.Cmd
	log                        *upgradeLog
	path, file, tcp, ws, admin string
	seen                       *atomic.Int64 // sessions the backend has seen
}

func startOld(t *testing.T, extraConfig string, env ...string) *oldProxy {
	t.Helper()
	dir := t.TempDir()
	p := &oldProxy{path: filepath.Join(dir, "moonbridge"), tcp: testutil.FreePort(t), ws: testutil.FreePort(t), admin: testutil.FreePort(t)}
	install(t, buildMoonbridge(t, dir, "v1.0.0-old"), p.path)
	var backend string
	backend, p.seen = echoBackend(t)
	p.file = upgradeConfig(t, p.tcp, p.ws, p.admin, backend, extraConfig)
	p.cmd, p.log = startBinary(t, p.path, p.file, env...)
	p.log.waitFor(t, "Admin endpoint")
	return p
}

// playOnce opens one session over transport, sends a hello and a line, and reads the line back.
func playOnce(transport, addr string, n int) error {
	conn, err := dialTransport(transport, addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	line := fmt.Sprintf("%s %d\n", transport, n)
	hello := mc.Handshake{Protocol: 767, Host: "localhost", Port: 25565, NextState: mc.NextLogin}.AppendFrame(nil, "localhost")
	if _, err := conn.Write(append(hello, line...)); err != nil {
		return err
	}
	got := make([]byte, len(line))
	if _, err := io.ReadFull(conn, got); err != nil {
		return err
	}
	if string(got) != line {
		return fmt.Errorf("echo %q, want %q", got, line)
	}
	return nil
}

// dialTransport connects to addr over transport, "tcp", "ws" or "wss" (TLS 1.3 to the
// self-signed certificate), within 10 s.
func dialTransport(transport, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if transport == "tcp" {
		return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	cfg := ws.DialConfig{URL: transport + "://" + addr + "/mc"}
	if transport == "wss" {
		cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}
	}
	return ws.Dial(ctx, cfg)
}

// connectLoop plays sessions one after another, on a few loops per transport, until stop, counting those
// served and keeping every failure.
type connectLoop struct {
	served   atomic.Int64
	mu       sync.Mutex
	failures []error
	wg       sync.WaitGroup
	stop     chan struct{}
}

func startConnectLoop(addrs map[string]string) *connectLoop {
	l := &connectLoop{stop: make(chan struct{})}
	for transport, addr := range addrs {
		for range loopsPerTransport {
			l.wg.Add(1)
			go l.run(transport, addr)
		}
	}
	return l
}

// loopsPerTransport is how many players connect one after another over each transport.
const loopsPerTransport = 3

func (l *connectLoop) run(transport, addr string) {
	defer l.wg.Done()
	for n := 0; ; n++ {
		select {
		case <-l.stop:
			return
		default:
		}
		if err := playOnce(transport, addr, n); err != nil {
			l.mu.Lock()
			l.failures = append(l.failures, fmt.Errorf("%s session %d: %w", transport, n, err))
			l.mu.Unlock()
		} else {
			l.served.Add(1)
		}
	}
}

// waitServed waits until n more sessions were served.
func (l *connectLoop) waitServed(t *testing.T, n int64) {
	t.Helper()
	want := l.served.Load() + n
	if !testutil.Within(20*time.Second, func() bool { return l.served.Load() >= want }) {
		l.mu.Lock()
		defer l.mu.Unlock()
		t.Fatalf("%d sessions served, want %d; failures: %v", l.served.Load(), want, errors.Join(l.failures[:min(5, len(l.failures))]...))
	}
}

func (l *connectLoop) end() []error {
	close(l.stop)
	l.wg.Wait()
	return l.failures
}

// Three upgrades in a row with players connecting in a tight loop over tcp and ws: each time
// the binary at the path the running process was started as is replaced, SIGUSR2 starts it, it
// takes the listeners (and the admin endpoint) and tells systemd its pid, the old one stops
// accepting, drains and exits 0. Not one connection is refused or reset, and every one is
// served by one of the two processes.
func TestUpgradeRefusesNoConnection(t *testing.T) {
	notify, states := notifySocket(t)
	old := startOld(t, "upgrade: {stay: 10s}\n", "NOTIFY_SOCKET="+notify)
	versions := []string{"v1.0.0-old", "v1.0.1-new"}
	binaries := []string{old.path + ".v1", buildMoonbridge(t, filepath.Dir(old.path), versions[1])}
	if err := os.Link(old.path, binaries[0]); err != nil {
		t.Fatal(err)
	}
	first, log, path, tcp, wsAddr, admin, seen := old.cmd, old.log, old.path, old.tcp, old.ws, old.admin, old.seen
	pid := first.Process.Pid
	if got := mainPID(t, states); got != pid {
		t.Errorf("systemd was told MAINPID=%d at start, want %d", got, pid)
	}

	loop := startConnectLoop(map[string]string{"tcp": tcp, "ws": wsAddr})
	loop.waitServed(t, 50)
	for i := range 3 {
		oldVersion, newVersion := versions[i%2], versions[(i+1)%2]
		install(t, binaries[(i+1)%2], path)
		if err := syscall.Kill(pid, syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		took := log.waitFor(t, "upgrade: taking over")
		if took["old_version"] != oldVersion || took["old_pid"] != float64(pid) {
			t.Errorf("upgrade %d: the new process took over from %v (%v), want pid %d (%s)", i+1, took["old_pid"], took["old_version"], pid, oldVersion)
		}
		handed := log.waitFor(t, "upgrade: the new process accepts")
		newPid := int(handed["new_pid"].(float64))
		killOnEnd(t, newPid)
		if got := mainPID(t, states); got != newPid {
			t.Errorf("upgrade %d: systemd was told MAINPID=%d, want the new process %d", i+1, got, newPid)
		}
		if _, counted := handed["moved"].(float64); handed["new_version"] != newVersion || !counted {
			t.Errorf("upgrade %d: hand-over line %v: want %s and the sessions moved", i+1, handed, newVersion)
		}
		done := log.waitFor(t, "upgrade: this process is done")
		if i == 0 { // this test's child; the processes after it are not
			if err := first.Wait(); err != nil {
				t.Errorf("the first process exited with %v, want 0", err)
			}
		}
		waitExited(t, pid)
		t.Logf("upgrade %d: %s", i+1, done["message"])
		pid = newPid
		loop.waitServed(t, 50) // served by the new process alone now
	}
	if failures := loop.end(); len(failures) > 0 {
		t.Fatalf("%d of %d sessions failed during the upgrades, first: %v", len(failures), int(loop.served.Load())+len(failures), errors.Join(failures[:min(5, len(failures))]...))
	}
	if served := loop.served.Load(); seen.Load() != served {
		t.Errorf("the backend saw %d sessions, the players were served %d", seen.Load(), served)
	}
	t.Logf("%d sessions served, none failed", loop.served.Load())
	if code, _ := testutil.BearerCall(t, http.MethodGet, "http://"+admin+"/readyz", "", ""); code != http.StatusOK {
		t.Errorf("the last process's /readyz: %d, want 200", code)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	log.waitFor(t, "drained")
}

// waitExited waits until pid has exited (gone, or a zombie nobody has reaped yet).
func waitExited(t *testing.T, pid int) {
	t.Helper()
	testutil.WaitFor(t, fmt.Sprintf("pid %d to exit", pid), func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		_, after, _ := strings.Cut(string(stat), ") ")
		return strings.HasPrefix(after, "Z")
	})
}

// upgradeFails sends SIGUSR2 and returns the old process's error line about it.
func upgradeFails(t *testing.T, old *exec.Cmd, log *upgradeLog) string {
	t.Helper()
	if err := old.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	line := log.waitFor(t, "upgrade failed; this process keeps serving")
	msg, _ := line["error"].(string)
	return msg
}

// openFDs counts the descriptors pid holds.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// A new binary that fails its start-up (here: the config file no longer loads) says why on the
// channel and exits 1; the old process logs both and keeps serving, and a later upgrade works.
func TestUpgradeWithBadConfigKeepsTheOldServing(t *testing.T) {
	p := startOld(t, "")
	old, log, file, tcp := p.cmd, p.log, p.file, p.tcp
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, append(good, "routes: not a list\n"...))
	if err := old.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	// The new process's last words (its error, on lines of its own after this one).
	log.waitFor(t, "moonbridge serve: upgrade: this new process did not start, the running one (pid "+fmt.Sprint(old.Process.Pid)+") keeps serving: config ")
	line := log.waitFor(t, "upgrade failed; this process keeps serving")
	msg, _ := line["error"].(string)
	for _, want := range []string{"failed its start-up", "routes", "exit status 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the old process's error %q does not say %q", msg, want)
		}
	}
	if err := playOnce("tcp", tcp, 1); err != nil {
		t.Fatalf("the old process after the failed upgrade: %v", err)
	}
	writeFile(t, file, good)
	old.Process.Signal(syscall.SIGUSR2)
	handed := log.waitFor(t, "upgrade: the new process accepts")
	killOnEnd(t, int(handed["new_pid"].(float64)))
}

// What a new process that is not moonbridge, or misbehaves, can do to the old one: hang, send
// garbage on the channel, have another process write to it. Each is killed after its bound
// or at once, and the old process keeps serving with no descriptor left behind.
func TestUpgradeSurvivesAMisbehavingNewProcess(t *testing.T) {
	p := startOld(t, "upgrade: {timeout: 2s}\n")
	old, log, path, tcp := p.cmd, p.log, p.path, p.tcp
	fds := openFDs(t, old.Process.Pid)
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"hangs", "exec sleep 60", []string{"not ready within upgrade.timeout (2s)", "killed by the old process"}},
		{"garbage", "printf 'GET / HTTP/1.1' >&3; exec sleep 60", []string{"bad message", "killed by the old process"}},
		{"huge length", `printf 'MBHO\000\001\003\000\377\377\377\377' >&3; exec sleep 60`, []string{"bad message: length", "killed by the old process"}},
		{"another writer", `(printf 'MBHO\000\001\002\000\000\000\000\000' >&3); exec sleep 60`, []string{"from another process", "killed by the old process"}},
		{"exits", "exit 3", []string{"exit status 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, path+".new", []byte("#!/bin/sh\n"+tc.script+"\n"))
			os.Chmod(path+".new", 0o755)
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
			msg := upgradeFails(t, old, log)
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if err := playOnce("tcp", tcp, 1); err != nil {
				t.Fatalf("the old process after the failed upgrade: %v", err)
			}
		})
	}
	// The sessions of playOnce end with the backend's side a little later: wait for them. Fewer
	// than before is no leak (something of the start-up was still open then).
	if !testutil.Within(10*time.Second, func() bool { return openFDs(t, old.Process.Pid) <= fds }) {
		t.Errorf("the old process holds %d descriptors after the failed upgrades, %d before", openFDs(t, old.Process.Pid), fds)
	}
}

// openSession starts a session over tcp and checks that it relays.
func openSession(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	hello := mc.Handshake{Protocol: 767, Host: "localhost", Port: 25565, NextState: mc.NextLogin}.AppendFrame(nil, "localhost")
	conn.Write(hello)
	relays(t, conn, "first")
	return conn
}

func relays(t *testing.T, conn net.Conn, text string) {
	t.Helper()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write([]byte(text))
	got := make([]byte, len(text))
	if _, err := io.ReadFull(conn, got); err != nil || string(got) != text {
		t.Fatalf("relayed %q, %v; want %q", got, err, text)
	}
}

// upgradeOnce upgrades old to the binary already at its path and returns the new process's pid.
func upgradeOnce(t *testing.T, old *exec.Cmd, log *upgradeLog) (pid int, sessions float64) {
	t.Helper()
	handed := upgradeHanded(t, old, log)
	return int(handed["new_pid"].(float64)), handed["sessions"].(float64)
}

// upgradeHanded is upgradeOnce's signal and wait, returning the old process's hand-over line.
func upgradeHanded(t *testing.T, old *exec.Cmd, log *upgradeLog) map[string]any {
	t.Helper()
	if err := old.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	handed := log.waitFor(t, "upgrade: the new process accepts")
	killOnEnd(t, int(handed["new_pid"].(float64)))
	return handed
}

// stayOnGoroutines keeps the sessions on goroutines, where an upgrade cannot move them.
const stayOnGoroutines = "relay: {data_path: goroutines}\n"

// A session open at the hand-over that cannot move (on goroutines) stays in the old process and
// goes on relaying there; after upgrade.stay it is drained (here closed at the drain's end:
// nothing can move it), the last line counts it, and the old process exits 0.
func TestUpgradeOldProcessServesWhatStayedThenDrains(t *testing.T) {
	p := startOld(t, "upgrade: {stay: 2s}\n"+stayOnGoroutines)
	old, log := p.cmd, p.log
	conn := openSession(t, p.tcp)
	if _, sessions := upgradeOnce(t, old, log); sessions != 1 {
		t.Errorf("%v sessions at the hand-over, want 1", sessions)
	}
	relays(t, conn, "after the hand-over")
	done := log.waitFor(t, "upgrade: this process is done")
	if done["moved"] != float64(0) || done["stayed"] != float64(1) || done["closed"] != float64(1) {
		t.Errorf("last line %v: want 0 moved, 1 stayed, 1 closed", done)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := conn.Read(make([]byte, 1)); err == nil {
		t.Errorf("the session read %d bytes after the drain, want its end", n)
	}
	if err := old.Wait(); err != nil {
		t.Errorf("old process: %v, want exit status 0", err)
	}
}

// When the new process ends while the old one still serves what stayed, nobody accepts on the
// listeners: the old one ends its stay, drains and exits non-zero, so that a supervisor
// restarts the service.
func TestUpgradeOldProcessFailsWhenTheNewOneEnds(t *testing.T) {
	p := startOld(t, "upgrade: {stay: 10m}\n"+stayOnGoroutines)
	old, log := p.cmd, p.log
	openSession(t, p.tcp)
	pid, _ := upgradeOnce(t, old, log)
	syscall.Kill(pid, syscall.SIGKILL)
	line := log.waitFor(t, "upgrade: the new process has ended")
	if msg, _ := line["error"].(string); !strings.Contains(msg, "killed") {
		t.Errorf("the old process says the new one ended with %q, want killed", msg)
	}
	var exit *exec.ExitError
	if err := old.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("old process: %v, want exit status 1", err)
	}
}
