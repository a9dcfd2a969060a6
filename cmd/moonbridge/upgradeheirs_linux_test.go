package main

import (
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// holderOf starts a process that holds a copy of ln's socket until the returned stop.
func holderOf(t *testing.T, ln *net.TCPListener) (stop func()) {
	t.Helper()
	f, err := ln.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "30")
	cmd.ExtraFiles = []*os.File{f}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(stop)
	return stop
}

// listenerLinks is a loopback listener and its socket as socketInodes names it.
func listenerLinks(t *testing.T) (*net.TCPListener, map[string]bool) {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	f, err := ln.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ln, socketInodes([]*os.File{f})
}

// Found by the hand-over record: after two upgrades within upgrade.stay, the first old
// process took its successor's exit 0 (it had handed over in turn) for nobody accepting, and
// drained the sessions that stayed with it. A successor's exit 0 ends the stay only once no
// other process holds the listening sockets.
func TestSuccessorsExitZeroWaitsForTheSocketsHeirs(t *testing.T) {
	ln, links := listenerLinks(t)
	if len(links) != 1 || heldElsewhere(links) {
		t.Fatalf("sockets %v, held elsewhere %v before any other process has them", links, heldElsewhere(links))
	}
	stopHeir := holderOf(t, ln)
	exited := make(chan error, 1)
	exited <- nil // the successor handed over in turn and exited 0
	ended := make(chan error, 1)
	go func() { ended <- successorEnd(exited, links) }()
	select {
	case err := <-ended:
		t.Fatalf("the stay ended (%v) while another process holds the listeners", err)
	case <-time.After(heirPoll + time.Second):
	}
	stopHeir()
	select {
	case err := <-ended:
		if err != errSuccessorEnded {
			t.Errorf("ended with %v, want the successor's exit 0", err)
		}
	case <-time.After(2*heirPoll + 5*time.Second):
		t.Fatal("the stay did not end once no process held the listeners")
	}
}

// A successor that failed ends the stay at once, whoever holds the sockets.
func TestSuccessorsFailureEndsTheStayAtOnce(t *testing.T) {
	ln, links := listenerLinks(t)
	holderOf(t, ln)
	exited := make(chan error, 1)
	exited <- &exec.ExitError{}
	done := make(chan error, 1)
	go func() { done <- successorEnd(exited, links) }()
	select {
	case err := <-done:
		if err == errSuccessorEnded {
			t.Errorf("a failed successor read as exit 0")
		}
	case <-time.After(time.Second):
		t.Fatal("a failed successor did not end the stay at once")
	}
}
