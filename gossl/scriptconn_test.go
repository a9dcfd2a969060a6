package gossl

import (
	"bytes"
	"crypto/tls"
	"io"
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
	server, client := net.Pipe()
	defer server.Close()
	go func() {
		c := tls.Client(client, &tls.Config{ServerName: "a.test", InsecureSkipVerify: true})
		_ = c.Handshake()
		client.Close()
	}()
	buf := make([]byte, 4096)
	_ = server.SetReadDeadline(time.Now().Add(testTimeout))
	n, err := server.Read(buf)
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return buf[:n]
}
