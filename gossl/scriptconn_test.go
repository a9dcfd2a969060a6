package gossl

import (
	"bytes"
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// scriptConn is a peer that sends fixed bytes, then EOF, and ignores what it is sent.
type scriptConn struct {
	r *bytes.Reader
}

func newScriptConn(data []byte) *scriptConn { return &scriptConn{r: bytes.NewReader(data)} }

func (c *scriptConn) Read(b []byte) (int, error)       { return c.r.Read(b) }
func (c *scriptConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }

// clientHello captures the first flight of a real crypto/tls client.
func clientHello(t testing.TB) []byte {
	t.Helper()
	return clientHelloWith(t, &tls.Config{ServerName: "a.test", InsecureSkipVerify: true})
}
