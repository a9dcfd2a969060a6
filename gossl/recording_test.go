package gossl

import (
	"bytes"
	"crypto/tls"
	"net"
	"sync"
)

func tlsClient(raw net.Conn, cfg *tls.Config) *tls.Conn { return tls.Client(raw, cfg) }

// recordingConn sends writes to the socket, except between start and stop, when it keeps them.
type recordingConn struct {
	net.Conn
	mu        sync.Mutex
	recording bool
	buf       *bytes.Buffer // nil: a fresh buffer
}

func (c *recordingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recording {
		if c.buf == nil {
			c.buf = new(bytes.Buffer)
		}
		return c.buf.Write(b)
	}
	return c.Conn.Write(b)
}

func (c *recordingConn) start() { c.mu.Lock(); c.recording = true; c.mu.Unlock() }
func (c *recordingConn) stop()  { c.mu.Lock(); c.recording = false; c.mu.Unlock() }

func (c *recordingConn) recorded() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// take returns what was recorded and forgets it.
func (c *recordingConn) take() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf == nil {
		return nil
	}
	b := bytes.Clone(c.buf.Bytes())
	c.buf.Reset()
	return b
}
