package gossl

import (
	"crypto/tls"
	"net"
	"sync"
)

// goConn is a crypto/tls server connection whose Write leaves in one socket write.
type goConn struct {
	*tls.Conn
	out *coalescer
	wmu sync.Mutex
}

// Write seals p and sends its records together, MaxBatch bytes of p per socket write.
func (c *goConn) Write(p []byte) (int, error) {
	// The handshake first: its flights must leave as they are made, not wait for a flush.
	if err := c.Handshake(); err != nil {
		return 0, err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	written := 0
	for written < len(p) {
		chunk := p[written:min(len(p), written+MaxBatch)]
		c.out.hold()
		n, err := c.Conn.Write(chunk)
		if ferr := c.out.flush(); err == nil {
			err = ferr
		}
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// State reports the session's parameters.
func (c *goConn) State() ConnState {
	cs := c.ConnectionState()
	if !cs.HandshakeComplete {
		return ConnState{}
	}
	return ConnState{
		Provider:    "go",
		Version:     cs.Version,
		CipherSuite: cs.CipherSuite,
		ALPN:        cs.NegotiatedProtocol,
		ServerName:  cs.ServerName,
		Resumed:     cs.DidResume,
	}
}

// coalescer sits under tls.Conn, which writes each record on its own: between hold and flush
// it gathers them so they leave in one socket write. Outside a hold (handshake flights, alerts
// from the read side) it writes through. The lock spans the socket write so records never
// reorder.
type coalescer struct {
	net.Conn
	mu      sync.Mutex
	holding bool
	buf     *[]byte
}

func (w *coalescer) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.holding {
		*w.buf = append(*w.buf, b...)
		return len(b), nil
	}
	return w.Conn.Write(b)
}

func (w *coalescer) hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holding = true
	w.buf = getBuf(batchBuf)
	*w.buf = (*w.buf)[:0]
}

func (w *coalescer) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holding = false
	var err error
	if len(*w.buf) > 0 {
		_, err = w.Conn.Write(*w.buf)
	}
	*w.buf = (*w.buf)[:cap(*w.buf)]
	putBuf(w.buf)
	w.buf = nil
	return err
}
