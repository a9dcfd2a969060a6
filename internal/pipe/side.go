package pipe

import "net"

// SideError is a failure on one side of a running session.
type SideError struct {
	Side string // whose read, or the write to whom, failed: the end's own names for its sides
	Err  error
}

func (e *SideError) Error() string { return e.Side + ": " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// SetNoDelay turns Nagle off on a TCP connection (Go's default, said out loud): both ends write
// whole batches, so waiting for more would only add latency.
func SetNoDelay(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetNoDelay(true)
	}
}
