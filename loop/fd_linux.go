package loop

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// errNotSocket: a Side's Conn is nil or has no descriptor to take.
var errNotSocket = errors.New("loop: conn is not a socket (nil, or not a syscall.Conn)")

// detach takes c's socket away from Go's poller: a close-on-exec dup of its descriptor, set
// non-blocking, then c is closed (the dup keeps the socket open; no FIN is sent). c is closed
// whatever happens.
func detach(c syscall.Conn, closeConn func() error) (int, error) {
	defer closeConn()
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// readFD reads once; EINTR is retried.
func readFD(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return max(n, 0), err
		}
	}
}

// writeFD writes once; EINTR is retried and EAGAIN is a write of 0 bytes.
func writeFD(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Write(fd, b)
		switch err {
		case nil:
			return n, nil
		case unix.EAGAIN:
			return 0, nil
		case unix.EINTR:
			continue
		}
		return 0, err
	}
}

// socketError is the pending error of a socket epoll reported EPOLLERR for.
func socketError(fd int) error {
	n, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	switch {
	case err != nil:
		return err
	case n != 0:
		return unix.Errno(n)
	}
	return errors.New("socket error reported without an error code")
}
