package ws

import (
	"net"
	"time"
)

// loopConn replays data forever in reads of at most chunk bytes and
// discards writes, counting them. It allocates nothing per call.
type loopConn struct {
	data   []byte
	pos    int
	chunk  int
	writes int
	wbytes int
}

func (l *loopConn) Read(p []byte) (int, error) {
	n := min(len(p), l.chunk, len(l.data)-l.pos)
	copy(p, l.data[l.pos:l.pos+n])
	l.pos = (l.pos + n) % len(l.data)
	return n, nil
}

func (l *loopConn) Write(p []byte) (int, error) {
	l.writes++
	l.wbytes += len(p)
	return len(p), nil
}

func (l *loopConn) Close() error                     { return nil }
func (l *loopConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (l *loopConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (l *loopConn) SetDeadline(time.Time) error      { return nil }
func (l *loopConn) SetReadDeadline(time.Time) error  { return nil }
func (l *loopConn) SetWriteDeadline(time.Time) error { return nil }
