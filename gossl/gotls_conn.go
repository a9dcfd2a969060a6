package gossl

import (
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
)

// goConn is a crypto/tls server connection whose Write leaves in one socket write and whose
// Read returns every record already received, not only the first.
type goConn struct {
	*tls.Conn
	out  *coalescer
	gate *readGate
	wmu  sync.Mutex
}

// Read fills p from the first record that arrives and then from every further record that
// crypto/tls already holds, without waiting for more: crypto/tls returns one record per Read,
// and the relay writes what one Read returns as one batch, so without this a socket read
// carrying a tick's three WebSocket messages became three backend writes (bench record
// 2026-11-29-moonbridge-vs-peers.md). While the gate is shut, the socket is not read.
func (c *goConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil || n == len(p) {
		return n, err
	}
	c.gate.shut.Store(true)
	defer c.gate.shut.Store(false)
	for n < len(p) {
		m, err := c.Conn.Read(p[n:])
		n += m
		if err != nil { // errGateShut, or an error the next Read returns again
			break
		}
	}
	return n, nil
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
		Provider:    ProviderGo,
		Version:     cs.Version,
		CipherSuite: cs.CipherSuite,
		Group:       cs.CurveID,
		ALPN:        cs.NegotiatedProtocol,
		ServerName:  cs.ServerName,
		Resumed:     cs.DidResume,
		RecordLayer: RecordLayerGo.String(),
	}
}

// CanDetach is false: a tls.Conn needs a goroutine to read it.
func (c *goConn) CanDetach() bool { return false }

// readGate sits under tls.Conn. While shut, a read does not touch the socket and fails with
// errGateShut, a temporary error that crypto/tls does not keep (it keeps any partial record).
type readGate struct {
	net.Conn
	shut atomic.Bool
}

func (g *readGate) Read(b []byte) (int, error) {
	if g.shut.Load() {
		return 0, errGateShut
	}
	return g.Conn.Read(b)
}

// errGateShut: nothing more is buffered; a timeout in net.Error's terms, so not sticky.
var errGateShut net.Error = gateShutError{}

type gateShutError struct{}

func (gateShutError) Error() string   { return "gossl: no buffered record" }
func (gateShutError) Timeout() bool   { return true }
func (gateShutError) Temporary() bool { return true }

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
