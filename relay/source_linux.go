//go:build linux

package relay

import (
	"io"
	"net"
	"os"
	"syscall"

	"github.com/moonbridge/moonbridge/internal/pipe"
)

// leanSource reads a socket through its RawConn: Go's poller calls tryRead when the socket may
// be readable. While data keeps coming the source keeps its buffer; the first read that finds
// nothing gives it back before the pump waits, and the next read that finds data takes one from
// the pool. So a waiting pump holds no buffer, a busy one does no pool traffic, and there is no
// extra syscall: the read that finds nothing is the one a blocking Read makes anyway.
type leanSource struct {
	raw syscall.RawConn
	// tryRead bound once: a method value made per read would allocate.
	tryReadFn func(fd uintptr) bool
	buf       *[]byte // held between reads while data keeps coming
	n         int     // what the last tryRead read, and how it ended
	err       error
}

// leanSourceFor is nil when conn is not a socket with a RawConn.
func leanSourceFor(conn net.Conn) pipe.Source {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	s := &leanSource{raw: raw}
	s.tryReadFn = s.tryRead
	return s
}

func (s *leanSource) Next() (*[]byte, int, error) {
	s.n, s.err = 0, nil
	if err := s.raw.Read(s.tryReadFn); err != nil { // closed, or a deadline
		return nil, 0, err
	}
	if s.n == 0 && s.err == nil {
		s.err = io.EOF
	}
	return s.buf, s.n, s.err
}

// tryRead reads what the socket has; false (nothing there yet) makes RawConn.Read wait for
// readability and call it again.
func (s *leanSource) tryRead(fd uintptr) bool {
	if s.buf == nil {
		s.buf = batchPool.Get()
	}
	for {
		n, err := syscall.Read(int(fd), (*s.buf)[headroom:])
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			batchPool.Put(s.buf)
			s.buf = nil
			return false
		case nil:
			s.n = n
		default:
			s.err = os.NewSyscallError("read", err)
		}
		return true
	}
}

func (s *leanSource) Close() {
	if s.buf != nil {
		batchPool.Put(s.buf)
		s.buf = nil
	}
}
