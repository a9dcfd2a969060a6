package main

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nonBlocking reads O_NONBLOCK of ln's socket (its open file description, which every copy of
// the descriptor shares).
func nonBlocking(t *testing.T, ln net.Listener) bool {
	t.Helper()
	raw, err := ln.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	raw.Control(func(fd uintptr) {
		r, _, _ := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		flags = int(r)
	})
	return flags&syscall.O_NONBLOCK != 0
}

// What one process hands over, the next takes by name: the same socket, which accepts what the
// first one no longer does. Passing the copies on (exec calls Fd on each) leaves the running
// listener's socket non-blocking, as its accept loop needs.
func TestSocketsHandOverAndInherit(t *testing.T) {
	old := newSockets()
	relayLn, err := old.relayListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer relayLn.Close()
	adminLn, err := old.listen(adminSocket("127.0.0.1:0"), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	files, names, err := old.handOver(4)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles(files)
	for _, f := range files {
		f.Fd() // what exec.Cmd does with ExtraFiles
	}
	if !nonBlocking(t, relayLn.(*namedListener).Listener) {
		t.Fatal("handing the sockets over put the running listener's socket in blocking mode")
	}
	var fds, named []string
	for _, entry := range strings.Split(names, ";") {
		fd, name, _ := strings.Cut(entry, "=")
		fds, named = append(fds, fd), append(named, name)
	}
	slices.Sort(fds)
	slices.Sort(named)
	if !slices.Equal(fds, []string{"4", "5"}) || !slices.Equal(named, []string{"admin 127.0.0.1:0", "relay 127.0.0.1:0"}) {
		t.Fatalf("%s=%q, want fds 4 and 5 named admin and relay", listenFDsEnv, names)
	}

	// In this process the copies have other numbers than 4 and 5: name those.
	var env []string
	for i, f := range files {
		fd, err := syscall.Dup(int(f.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		_, name, _ := strings.Cut(strings.Split(names, ";")[i], "=")
		env = append(env, fmt.Sprintf("%d=%s", fd, name))
	}
	next := newSockets()
	if n, err := next.inherit(strings.Join(env, ";")); err != nil || n != 2 {
		t.Fatalf("inherit: %d, %v", n, err)
	}
	taken, err := next.relayListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	if taken.Addr().String() != relayLn.Addr().String() {
		t.Fatalf("took %s, want the handed-over %s", taken.Addr(), relayLn.Addr())
	}
	relayLn.Close()
	adminLn.Close()
	conn, err := net.DialTimeout("tcp", taken.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatalf("after the old listener closed: %v", err)
	}
	conn.Close()
	if _, err := taken.Accept(); err != nil {
		t.Fatalf("the new holder did not accept: %v", err)
	}
	if untaken := next.closeUntaken(); !slices.Equal(untaken, []string{"admin 127.0.0.1:0"}) {
		t.Errorf("untaken %q, want the admin socket", untaken)
	}
}

func TestSocketsRefuseABadList(t *testing.T) {
	for _, env := range []string{"", "x=relay a", "2=relay a", "5=", "5", "5=relay a;;"} {
		if _, err := newSockets().inherit(env); err == nil || !strings.Contains(err.Error(), listenFDsEnv) {
			t.Errorf("%q: %v, want an error naming %s", env, err, listenFDsEnv)
		}
	}
}
