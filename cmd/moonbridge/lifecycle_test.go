package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// taggedBackend answers every connection with its tag byte, then echoes what it gets.
func taggedBackend(t *testing.T, tag byte) string {
	return fakeBackend(t, func(conn net.Conn) { conn.Write([]byte{tag}); io.Copy(conn, conn) })
}

// loginHandshake is a login's handshake for localhost:25565 (protocol 767), spelled out.
var loginHandshake = append(append([]byte{16, 0x00, 0xff, 0x05, 9}, "localhost"...), 0x63, 0xdd, 0x02)

// play opens a session (a login handshake) and returns it with the tag of its backend.
func play(t *testing.T, addr string) (net.Conn, byte) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.Write(loginHandshake)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 1+len(loginHandshake)) // the tag, then the echoed handshake
	if _, err := io.ReadFull(conn, buf); err != nil {
		t.Fatal(err)
	}
	return conn, buf[0]
}

// echoes checks that a running session still relays both ways, byte-exact.
func echoes(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	msg := bytes.Repeat([]byte(what), 1000)
	conn.Write(msg)
	got := make([]byte, len(msg))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("%s: the running session did not echo (%v)", what, err)
	}
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func serveConfig(backend, drainTimeout string) []byte {
	return []byte("log: {format: json}\nadmin: {listen: 127.0.0.1:0}\nshutdown: {drain_timeout: " + drainTimeout + "}\n" +
		"listeners:\n  - listen: 127.0.0.1:0\n    protocols: [minecraft]\n" +
		"routes:\n  - hosts: ['*']\n    backends: ['" + backend + "']\n")
}

// Issue 13, defects 3 and 9, through signals to the process: SIGHUP moves new players to the
// new route while a running session stays with its backend; a broken file changes nothing;
// SIGTERM turns /readyz to 503 at once and lets the sessions finish.
func TestSignalsReloadAndDrain(t *testing.T) {
	first, second := taggedBackend(t, 'A'), taggedBackend(t, 'B')
	file := filepath.Join(t.TempDir(), "moonbridge.yml")
	writeFile(t, file, serveConfig(first, "1m"))
	p := startMoonbridge(t, "serve", "--config", file)
	addr := p.waitFor(t, "Listening on ").Addr
	admin := "http://" + p.waitFor(t, "Admin endpoint").Addr
	running, tag := play(t, addr)
	if tag != 'A' {
		t.Fatalf("first session went to %q", tag)
	}

	// Each step: the file, the line SIGHUP logs, where a new player goes; the running session
	// stays with A.
	var others []net.Conn
	for _, step := range []struct {
		file       []byte
		line       string
		newPlayers byte
	}{
		{serveConfig(second, "1m"), "SIGHUP: configuration reloaded", 'B'},
		{[]byte("routes: [\n"), "SIGHUP: configuration not reloaded", 'B'},
	} {
		writeFile(t, file, step.file)
		p.cmd.Process.Signal(syscall.SIGHUP)
		p.waitFor(t, step.line)
		conn, tag := play(t, addr)
		if tag != step.newPlayers {
			t.Errorf("after %q a new player went to %q, want %q", step.line, tag, step.newPlayers)
		}
		others = append(others, conn)
		echoes(t, running, step.line)
	}
	metrics := httpGet(t, admin+"/metrics")
	for _, want := range []string{`moonbridge_config_reloads_total{result="ok"} 1`, `moonbridge_config_reloads_total{result="failed"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	p.cmd.Process.Signal(syscall.SIGTERM)
	p.waitFor(t, "draining")
	if code := httpStatus(t, admin+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the drain: %d, want 503", code)
	}
	if code := httpStatus(t, admin+"/livez"); code != http.StatusOK {
		t.Errorf("/livez during the drain: %d, want 200", code)
	}
	echoes(t, running, "during the drain ")
	for _, conn := range append(others, running) {
		conn.Close()
	}
	drained := p.waitFor(t, "drained")
	if drained.Closed != 0 || drained.Ended != 3 {
		t.Errorf("drain ended %d sessions by themselves and closed %d; want all by themselves", drained.Ended, drained.Closed)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("moonbridge ended with %v after its drain, want exit status 0", err)
	}
}

// A second SIGTERM during the drain closes the sessions still open at once.
func TestSecondSignalEndsTheDrain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "moonbridge.yml")
	writeFile(t, file, serveConfig(taggedBackend(t, 'A'), "1m"))
	p := startMoonbridge(t, "serve", "--config", file)
	conn, _ := play(t, p.waitFor(t, "Listening on ").Addr)
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.waitFor(t, "draining")
	p.cmd.Process.Signal(syscall.SIGTERM)
	if drained := p.waitFor(t, "drained"); drained.Closed != 1 {
		t.Errorf("the second signal closed %d sessions, want 1", drained.Closed)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Errorf("the player's session did not end: %v", err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("moonbridge ended with %v, want exit status 0", err)
	}
}

// shutdown.drain_timeout changed by a reload is the one SIGTERM uses: 0 closes at once.
func TestReloadedDrainTimeoutApplies(t *testing.T) {
	file := filepath.Join(t.TempDir(), "moonbridge.yml")
	backend := taggedBackend(t, 'A')
	writeFile(t, file, serveConfig(backend, "1m"))
	p := startMoonbridge(t, "serve", "--config", file)
	play(t, p.waitFor(t, "Listening on ").Addr)
	writeFile(t, file, serveConfig(backend, "0s"))
	p.cmd.Process.Signal(syscall.SIGHUP)
	p.waitFor(t, "SIGHUP: configuration reloaded")
	p.cmd.Process.Signal(syscall.SIGTERM)
	if drained := p.waitFor(t, "drained"); drained.Closed != 1 {
		t.Errorf("the drain closed %d sessions, want 1 at once", drained.Closed)
	}
}
