//go:build linux

package ws

import "syscall"

// WaitReadable blocks until the connection has bytes to read (or EOF or an
// error), without a buffer, so an idle session can leave its read buffer in
// a pool and take it only when data arrives. It peeks one byte with
// MSG_PEEK through syscall.RawConn, which parks on Go's poller.
//
// It returns at once when it cannot wait this way: the connection is not a
// plain socket (TLS hides readiness behind its own buffer), or the stream
// already ended. The read deadline applies.
func (c *Conn) WaitReadable() error {
	if c.rd.err != nil || c.raw == nil {
		return nil
	}
	return c.raw.Read(peekReady)
}

// peekReady reports whether fd has a byte, EOF or an error pending;
// false makes RawConn.Read wait for readability and ask again.
func peekReady(fd uintptr) bool {
	var b [1]byte
	_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return err != syscall.EAGAIN && err != syscall.EINTR
}
