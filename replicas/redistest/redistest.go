// Package redistest runs a real redis-server (Debian's package, which scripts/bootstrap.sh base
// installs) for tests: on a free loopback port, with its files in the test's temporary
// directory, stopped when the test ends. Stop and Start let a test take Redis away and bring it
// back on the same address, and Pause makes it hang.
package redistest

import (
	"bufio"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// Server is one redis-server process a test runs.
type Server struct {
	t    testing.TB
	Addr string // host:port
	dir  string
	cmd  *exec.Cmd
}

// Start runs a redis-server until the test ends. Without redis-server on PATH the test fails
// with the command that installs it: a test of shared state that cannot run is not a pass.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed (scripts/bootstrap.sh base installs it; make test runs that): %v", err)
	}
	s := &Server{t: t, Addr: testutil.FreePort(t), dir: t.TempDir()}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server again after Stop, on the same address and empty (nothing is saved).
func (s *Server) Start() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server: %v", err)
	}
	testutil.WaitFor(s.t, "redis-server to answer PING on "+s.Addr, s.answers)
}

// Pause stops the server's process without closing its sockets: connections to it are
// accepted by the kernel and then answered by nobody, as a Redis that hangs. Stop ends it.
func (s *Server) Pause() {
	s.t.Helper()
	if err := pause(s.cmd.Process); err != nil {
		s.t.Fatalf("pausing redis-server: %v", err)
	}
}

// Stop kills the server and waits for it; a stopped server's Stop does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// answers says whether the server answers PING.
func (s *Server) answers() bool {
	conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}
