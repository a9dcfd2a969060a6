//go:build linux

package handover

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// Conn is one end of the channel. Its methods are not safe for concurrent use.
type Conn struct {
	c *net.UnixConn
	// from is the only process whose messages this end reads, checked by the credentials the
	// kernel attaches (SO_PASSCRED); 0 on the child's end, whose other end only its parent holds.
	from int
}

// ErrSender is a message from another process than the one this end expects.
var ErrSender = errors.New("handover: message from another process than the one started")

// Pair makes the channel for a child about to start: the parent's end, which reads the
// credentials of each message's sender, and the child's, to be inherited by the child alone
// (it is close-on-exec: pass it in exec.Cmd.ExtraFiles) and closed here once the child runs.
// Neither end has an address: no other process can connect to it.
func Pair() (*Conn, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("handover: socketpair: %w", err)
	}
	child := os.NewFile(uintptr(fds[1]), "handover-child")
	parentFile := os.NewFile(uintptr(fds[0]), "handover-parent")
	defer parentFile.Close()
	if err := syscall.SetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1); err != nil {
		child.Close()
		return nil, nil, fmt.Errorf("handover: SO_PASSCRED: %w", err)
	}
	parent, err := fileConn(parentFile)
	if err != nil {
		child.Close()
		return nil, nil, err
	}
	return parent, child, nil
}

// Open takes the child's end from the descriptor the parent passed; the descriptor itself is
// closed (the Conn holds a close-on-exec copy), so a process this one starts does not inherit it.
func Open(fd uintptr) (*Conn, error) {
	f := os.NewFile(fd, "handover")
	if f == nil {
		return nil, fmt.Errorf("handover: descriptor %d is not valid", fd)
	}
	defer f.Close()
	return fileConn(f)
}

func fileConn(f *os.File) (*Conn, error) {
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("handover: %w", err)
	}
	uc, ok := c.(*net.UnixConn)
	if !ok || uc.LocalAddr().Network() != "unixpacket" {
		c.Close()
		return nil, fmt.Errorf("handover: descriptor %d is a %s socket, not unixpacket", f.Fd(), c.LocalAddr().Network())
	}
	return &Conn{c: uc}, nil
}

// Expect makes this end read only messages that pid sent.
func (c *Conn) Expect(pid int) { c.from = pid }

// Close closes this end; the other end reads io.EOF.
func (c *Conn) Close() error { return c.c.Close() }

// Send writes m as one packet, by deadline.
func (c *Conn) Send(m Message, deadline time.Time) error { return c.send(m, nil, deadline) }

// send writes m with the descriptors in oob (SCM_RIGHTS; nil: none) as one packet: the kernel
// queues both or neither.
func (c *Conn) send(m Message, oob []byte, deadline time.Time) error {
	b, err := appendMessage(make([]byte, 0, headerLen+len(m.Body)), m)
	if err != nil {
		return err
	}
	defer clear(b) // a Session's body may hold a wss session's keys
	c.c.SetWriteDeadline(deadline)
	if _, _, err := c.c.WriteMsgUnix(b, oob, nil); err != nil {
		return fmt.Errorf("handover: send %s: %w", m.Kind, err)
	}
	return nil
}

// oobSpace holds the sender's credentials and, to be closed, a few descriptors nobody asked for.
var oobSpace = syscall.CmsgSpace(syscall.SizeofUcred) + syscall.CmsgSpace(4*16)

// Receive reads one message by deadline: io.EOF when the other end is closed (the child ended),
// a *FormatError for a packet that is not a message of this format, ErrSender for one from
// another process, os.ErrDeadlineExceeded when none came in time. Descriptors sent along are
// closed: only a Session carries any, and ReceiveSession reads those.
func (c *Conn) Receive(deadline time.Time) (Message, error) {
	m, fds, err := c.receive(deadline)
	closeAll(fds)
	if err == nil && len(fds) > 0 {
		err = badf("descriptors sent along with a %s, which carries none", m.Kind)
	}
	return m, err
}

// receive reads one message and the descriptors sent with it, which the caller closes or
// keeps, also on an error (then they are closed here already).
func (c *Conn) receive(deadline time.Time) (Message, []int, error) {
	buf := make([]byte, headerLen+MaxBody+1) // one byte more: a longer packet shows as MSG_TRUNC
	oob := make([]byte, oobSpace)
	c.c.SetReadDeadline(deadline)
	n, oobn, flags, _, err := c.c.ReadMsgUnix(buf, oob)
	if errors.Is(err, io.EOF) { // also an empty packet, which Go cannot tell from the end
		return Message{}, nil, io.EOF
	}
	if err != nil {
		return Message{}, nil, fmt.Errorf("handover: receive: %w", err)
	}
	sender, fds, err := parseControl(oob[:oobn])
	switch {
	case err != nil:
	case flags&syscall.MSG_TRUNC != 0:
		err = badf("longer than the %d-byte header and %d-byte body", headerLen, MaxBody)
	case flags&syscall.MSG_CTRUNC != 0:
		err = badf("more descriptors sent along than a message carries")
	case c.from != 0 && sender != c.from:
		err = fmt.Errorf("%w (pid %d, want %d)", ErrSender, sender, c.from)
	}
	var m Message
	if err == nil {
		m, err = parseMessage(buf[:n])
	}
	if err != nil {
		closeAll(fds)
		return Message{}, nil, err
	}
	return m, fds, nil
}

// parseControl reads the sender's pid (0 without credentials) and the descriptors of oob.
func parseControl(oob []byte) (pid int, fds []int, err error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, nil, badf("control data: %v", err)
	}
	for _, m := range msgs {
		if rights, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, rights...)
		} else if cred, err := syscall.ParseUnixCredentials(&m); err == nil {
			pid = int(cred.Pid)
		}
	}
	return pid, fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}
