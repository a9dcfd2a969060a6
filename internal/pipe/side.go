package pipe

import "net"

// SideError is a failure on one side of a running session: a pump's read or write, or an event
// loop's socket (read, write, an error or reset reported by epoll) or codec (open, seal,
// keepalive). It is declared here because this package imports nothing of moonbridge: package
// loop (under ws and gossl) and the relay and the bridge (over the pumps) all can import it, and
// the client bridge does not pull in the event loop for one error type.
type SideError struct {
	Side string // whose read, or the write to whom, failed: the end's own names for its sides
	Op   string // what failed there, when the maker says ("read", "open", ...); "" otherwise
	Err  error
}

func (e *SideError) Error() string {
	if e.Op == "" {
		return e.Side + ": " + e.Err.Error()
	}
	return e.Side + ": " + e.Op + ": " + e.Err.Error()
}
func (e *SideError) Unwrap() error { return e.Err }

// SetNoDelay turns Nagle off on a TCP connection (Go's default, said out loud): both ends write
// whole batches, so waiting for more would only add latency.
func SetNoDelay(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetNoDelay(true)
	}
}
