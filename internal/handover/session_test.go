//go:build linux

package handover

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// pipeEnds is a pipe whose write end the test sends; reading the read end tells whether every
// copy of the write end is closed (io.EOF) or one is still open somewhere.
func pipeEnds(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// closedEverywhere says whether no copy of the pipe's write end is open any more.
func closedEverywhere(t *testing.T, r *os.File) bool {
	t.Helper()
	r.SetReadDeadline(soon())
	_, err := r.Read(make([]byte, 1))
	return err == io.EOF
}

// A session goes with its body and both descriptors, which the child then owns; Taken and
// Refused come back as the parent's nil and *RefusedError.
func TestSessionCarriesBodyAndDescriptors(t *testing.T) {
	parent, child := pair(t)
	r1, w1 := pipeEnds(t)
	r2, w2 := pipeEnds(t)
	if err := parent.SendSession([]byte("state"), [SessionFDs]int{int(w1.Fd()), int(w2.Fd())}, soon()); err != nil {
		t.Fatal(err)
	}
	w1.Close()
	w2.Close()
	got, err := child.ReceiveSession(soon())
	if err != nil || string(got.Body) != "state" {
		t.Fatalf("received %q, %v", got.Body, err)
	}
	if _, err := syscall.Write(got.FDs[1], []byte("x")); err != nil {
		t.Fatalf("the second descriptor does not write: %v", err)
	}
	if b := make([]byte, 1); func() bool { n, _ := r2.Read(b); return n != 1 || b[0] != 'x' }() {
		t.Errorf("the second descriptor is not the second pipe")
	}
	closeAll(got.FDs[:])
	if !closedEverywhere(t, r1) {
		t.Errorf("a copy of the first descriptor is still open")
	}
	child.Answer(nil, soon())
	if err := parent.AwaitAnswer(soon()); err != nil {
		t.Errorf("taken: %v", err)
	}
	child.Answer(errors.New("no such route"), soon())
	var refused *RefusedError
	if err := parent.AwaitAnswer(soon()); !errors.As(err, &refused) || refused.Reason != "no such route" {
		t.Errorf("refused: %v", err)
	}
}

// A Session with the wrong number of descriptors is a *SessionError: its descriptors are
// closed and the channel goes on (the next session is read).
func TestSessionWithWrongDescriptorCount(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		parent, child := pair(t)
		r, w := pipeEnds(t)
		fds := make([]int, n)
		for i := range fds {
			fds[i] = int(w.Fd())
		}
		var oob []byte
		if n > 0 {
			oob = syscall.UnixRights(fds...)
		}
		if err := parent.send(Message{Version: Version, Kind: Session, Body: []byte("s")}, oob, soon()); err != nil {
			t.Fatal(err)
		}
		w.Close()
		var wrong *SessionError
		if _, err := child.ReceiveSession(soon()); !errors.As(err, &wrong) {
			t.Fatalf("%d descriptors: %v, want a SessionError", n, err)
		}
		if !closedEverywhere(t, r) {
			t.Errorf("%d descriptors: one is still open in the receiver", n)
		}
		parent.SendSession([]byte("next"), [SessionFDs]int{0, 1}, soon())
		if got, err := child.ReceiveSession(soon()); err != nil || string(got.Body) != "next" {
			t.Errorf("%d descriptors: the next session reads %q, %v", n, got.Body, err)
		} else {
			closeAll(got.FDs[:])
		}
	}
}

// The end of the sessions is io.EOF; another kind than Session is unexpected, its descriptors
// closed; Ready with descriptors is refused by Receive as before.
func TestSessionsEndAndOtherKinds(t *testing.T) {
	parent, child := pair(t)
	parent.SendReady(soon())
	if _, err := child.ReceiveSession(soon()); !errors.Is(err, ErrUnexpected) {
		t.Errorf("ready instead of a session: %v, want ErrUnexpected", err)
	}
	parent.Close()
	if _, err := child.ReceiveSession(soon()); err != io.EOF {
		t.Errorf("closed: %v, want io.EOF", err)
	}
}
