//go:build linux

package handover

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pair is both ends in this process: the parent's end expects this process as the sender.
func pair(t *testing.T) (parent, child *Conn) {
	t.Helper()
	parent, file, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(file.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	file.Close()
	child, err = Open(uintptr(fd))
	if err != nil {
		t.Fatal(err)
	}
	parent.Expect(os.Getpid())
	t.Cleanup(func() { parent.Close(); child.Close() })
	return parent, child
}

func soon() time.Time { return time.Now().Add(5 * time.Second) }

func TestGreetAndReady(t *testing.T) {
	parent, child := pair(t)
	got := make(chan Peer, 1)
	go func() {
		peer, err := child.Greet("v-new", soon())
		if err != nil {
			t.Error(err)
		}
		got <- peer
		child.SendReady(soon())
	}()
	peer, err := parent.Greet("v-old", soon())
	if err != nil || peer.Build != "v-new" || !peer.SameFormat() {
		t.Fatalf("parent met %+v, %v; want v-new of version %d", peer, err, Version)
	}
	if err := parent.AwaitReady(soon()); err != nil {
		t.Fatalf("ready: %v", err)
	}
	if p := <-got; p.Build != "v-old" {
		t.Errorf("child met %+v", p)
	}
}

// A child of another format version still greets and says ready (the base kinds); kinds of its
// version beyond the base are refused.
func TestAnotherVersionIsListenersOnly(t *testing.T) {
	parent, child := pair(t)
	go func() {
		child.Send(Message{Version: Version + 1, Kind: Hello, Body: []byte("v-future")}, soon())
		child.Send(Message{Version: Version + 1, Kind: Session, Body: []byte("state")}, soon())
		child.Send(Message{Version: Version + 1, Kind: Ready}, soon())
	}()
	peer, err := parent.Greet("v-old", soon())
	if err != nil || peer.SameFormat() || peer.Version != Version+1 {
		t.Fatalf("met %+v, %v; want version %d, not the same format", peer, err, Version+1)
	}
	var format *FormatError
	if _, err := parent.Receive(soon()); !errors.As(err, &format) {
		t.Errorf("a session record of version %d: %v, want a FormatError", Version+1, err)
	}
	if err := parent.AwaitReady(soon()); err != nil {
		t.Errorf("ready of version %d: %v", Version+1, err)
	}
}

// What the least trusted writer on the child's end can send: each is refused with a
// FormatError, allocates no more than the bound, and leaves the channel readable.
func TestGarbledMessagesAreRefused(t *testing.T) {
	header := func(magic string, version uint16, kind Kind, reserved byte, length uint32) []byte {
		b := append([]byte(magic), 0, 0, byte(kind), reserved, 0, 0, 0, 0)
		binary.BigEndian.PutUint16(b[4:], version)
		binary.BigEndian.PutUint32(b[8:], length)
		return b
	}
	for name, packet := range map[string][]byte{
		"empty":                {},
		"short":                []byte("MBHO"),
		"magic":                header("HTTP", Version, Ready, 0, 0),
		"reserved":             header("MBHO", Version, Ready, 1, 0),
		"huge length":          header("MBHO", Version, Failed, 0, 0xFFFFFFFF),
		"length too long":      append(header("MBHO", Version, Failed, 0, 10), "abc"...),
		"length too short":     append(header("MBHO", Version, Failed, 0, 1), "abc"...),
		"unknown kind":         header("MBHO", Version, 99, 0, 0),
		"session without body": header("MBHO", Version, Session, 0, 0),
		"taken with a body":    append(header("MBHO", Version, Taken, 0, 1), 'x'),
		"ready with a body":    append(header("MBHO", Version, Ready, 0, 1), 'x'),
		"reason not UTF-8":     append(header("MBHO", Version, Failed, 0, 2), 0xff, 0xfe),
		"build too long":       append(header("MBHO", Version, Hello, 0, maxBuild+1), strings.Repeat("v", maxBuild+1)...),
		"over the bound":       append(header("MBHO", Version, Failed, 0, MaxBody+1), make([]byte, MaxBody+1)...),
	} {
		t.Run(name, func(t *testing.T) {
			parent, child := pair(t)
			if _, _, err := child.c.WriteMsgUnix(packet, nil, nil); err != nil {
				t.Fatal(err)
			}
			_, err := parent.Receive(soon())
			if name == "empty" { // an empty packet reads as the end of the channel
				if err != io.EOF {
					t.Fatalf("empty packet: %v, want io.EOF", err)
				}
				return
			}
			var format *FormatError
			if !errors.As(err, &format) {
				t.Fatalf("%q: %v, want a FormatError", packet[:min(len(packet), 16)], err)
			}
			child.SendReady(soon())
			if err := parent.AwaitReady(soon()); err != nil {
				t.Errorf("after the bad packet: %v", err)
			}
		})
	}
}

// Descriptors sent along are refused and closed, whatever the kind.
func TestDescriptorsAreRefusedAndClosed(t *testing.T) {
	parent, child := pair(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, _ := appendMessage(nil, Message{Version: Version, Kind: Ready})
	if _, _, err := child.c.WriteMsgUnix(b, syscall.UnixRights(int(w.Fd())), nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var format *FormatError
	if _, err := parent.Receive(soon()); !errors.As(err, &format) {
		t.Fatalf("ready with a descriptor: %v, want a FormatError", err)
	}
	// The receiver's copy of the write end is closed: the read end sees the end of the pipe.
	r.SetReadDeadline(soon())
	if n, err := r.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("pipe read %d, %v: the descriptor sent along is still open", n, err)
	}
}

// The parent reads only the process it started: a message from any other (here, this
// process, while the parent's end expects pid 1) is refused by the kernel's credentials.
func TestOtherSenderIsRefused(t *testing.T) {
	parent, child := pair(t)
	parent.Expect(1)
	child.SendReady(soon())
	if err := parent.AwaitReady(soon()); !errors.Is(err, ErrSender) {
		t.Fatalf("ready from pid %d to an end expecting pid 1: %v, want ErrSender", os.Getpid(), err)
	}
}

// No other process can reach the channel: neither end has an address to connect to, and the
// child's end is close-on-exec until exec.Cmd passes it on purpose.
func TestChannelHasNoAddressAndIsNotInherited(t *testing.T) {
	parent, file, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	defer file.Close()
	// Go names an unnamed unix socket "@" (an empty abstract name, which cannot be bound).
	for end, addr := range map[string]net.Addr{"parent": parent.c.LocalAddr(), "child": parent.c.RemoteAddr()} {
		if addr != nil && addr.String() != "" && addr.String() != "@" {
			t.Errorf("%s end bound to %q", end, addr)
		}
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, file.Fd(), syscall.F_GETFD, 0)
	if errno != 0 || flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("child end flags %#x (%v): not close-on-exec", flags, errno)
	}
}

// A child that says nothing is a timeout; one that ends is io.EOF.
func TestSilenceAndEnd(t *testing.T) {
	parent, child := pair(t)
	if err := parent.AwaitReady(time.Now().Add(50 * time.Millisecond)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("silent child: %v, want a deadline error", err)
	}
	child.Close()
	if err := parent.AwaitReady(soon()); err != io.EOF {
		t.Errorf("ended child: %v, want io.EOF", err)
	}
}

func TestFailedCarriesTheReasonWithinItsBound(t *testing.T) {
	parent, child := pair(t)
	go child.SendFailed(strings.Repeat("é", maxReason), soon()) // twice the bound in bytes
	var start *StartError
	if err := parent.AwaitReady(soon()); !errors.As(err, &start) || len(start.Reason) > maxReason || !strings.HasPrefix(start.Reason, "éé") {
		t.Fatalf("failed: %v", err)
	}
}
