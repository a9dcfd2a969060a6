package ws

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Role says which side of the connection this end is: servers read masked
// frames and write unmasked ones, clients the reverse.
type Role uint8

const (
	RoleServer Role = iota
	RoleClient
)

// Conn is an upgraded WebSocket connection used as a byte stream. It
// implements net.Conn. One goroutine may Read while others Write,
// WriteBatch and Close; every frame goes through one writer lock, so
// control frames never land inside a data frame.
type Conn struct {
	nc          net.Conn
	role        Role
	cfg         Config
	log         peerLog
	subprotocol string

	rd parser // owned by the Read goroutine

	wmu       sync.Mutex
	closeSent bool                                   // guarded by wmu
	detached  bool                                   // guarded by wmu: Detach handed the socket over
	ctlOut    [MaxHeaderLen + MaxControlPayload]byte // guarded by wmu
	masks     maskSource                             // guarded by wmu; clients only

	wrote      atomic.Bool                // set by every frame written; read by the keepalive
	peerClosed atomic.Bool                // the peer's close frame was read
	peerClose  atomic.Pointer[CloseError] // its code and reason, when the frame was valid
	// reader is the Read side's word for the keepalive (readerHeard, readerWaiting): one word,
	// so a read costs one store more than before the dead-peer check needed to know the wait.
	reader atomic.Uint32
	ka     *keepalive

	closeOnce sync.Once
	closeErr  error
}

// NewConn wraps nc, a connection that has completed the upgrade handshake,
// and starts its keepalive. Server and Dial call it; so may a caller that
// did its own handshake.
func NewConn(nc net.Conn, role Role, cfg Config) *Conn {
	c := &Conn{nc: nc, role: role, cfg: cfg.withDefaults()}
	c.rd = newParser(role, c.cfg)
	c.log = peerLog{base: c.cfg.Logger, remote: nc.RemoteAddr()}
	if role == RoleClient {
		c.masks = newMaskSource()
	}
	c.ka = startKeepalive(c)
	return c
}

// Subprotocol is the subprotocol the handshake agreed on, or "".
func (c *Conn) Subprotocol() string { return c.subprotocol }

// Close sends a normal close frame (1000) and closes the connection.
func (c *Conn) Close() error { return c.CloseWithCode(CloseNormal, "") }

// CloseWithCode sends a close frame with code and reason (at most
// CloseTimeout is spent on it) and closes the underlying connection. Only
// the first call has an effect; later calls return the first one's result.
func (c *Conn) CloseWithCode(code CloseCode, reason string) error {
	return c.close(code, reason, false)
}

// SendClose sends a close frame with code and reason (at most CloseTimeout is spent on it) and
// leaves the connection open for the peer's answer, as RFC 6455 section 7.1.2 wants of the side
// that starts the closing handshake: the Read that meets the answer returns io.EOF and closes
// the connection. Nothing but that answer may be written after it. The caller bounds the wait
// (SetReadDeadline) and closes the connection in the end.
func (c *Conn) SendClose(code CloseCode, reason string) error {
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.cfg.CloseTimeout))
	return c.writeClose(code, reason)
}

// maxLingerBytes bounds what a lingering close reads and drops.
const maxLingerBytes = 1 << 20

// close sends the close frame and closes the connection, once. With linger it first reads and
// drops what the peer still sends, until it closes or CloseTimeout passes: closing a socket that
// has unread bytes makes the kernel send a reset, which can destroy the close frame (and its
// reason) before the peer reads it. Bad input is closed this way.
func (c *Conn) close(code CloseCode, reason string, linger bool) error {
	c.closeOnce.Do(func() {
		c.ka.stop()
		// The deadline comes before the lock so that a batch stuck on a
		// peer that stopped reading gives way to the close.
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.cfg.CloseTimeout))
		if c.writeClose(code, reason) == errDetached {
			return // the socket is the caller of Detach's now (a dead-peer close lost the race)
		}
		if linger {
			_ = c.nc.SetReadDeadline(time.Now().Add(c.cfg.CloseTimeout))
			_, _ = io.Copy(io.Discard, io.LimitReader(c.nc, maxLingerBytes))
		}
		c.closeErr = c.nc.Close()
	})
	return c.closeErr
}

// PeerClosed says whether the peer's close frame has been read: nothing written from then on
// reaches it (WriteBatch returns ErrClosed once the answer is out). It is set before the Read
// that met the close frame returns.
func (c *Conn) PeerClosed() bool { return c.peerClosed.Load() }

// PeerClose is the code and reason of the peer's close frame, CloseNoStatus for an empty one,
// once a Read has met it; ok is false before, and when the frame was malformed. It is how a
// normal close's reason (1000, 1001), which Read ends with io.EOF, is read: a proxy going away
// says why.
func (c *Conn) PeerClose() (code CloseCode, reason string, ok bool) {
	if ce := c.peerClose.Load(); ce != nil {
		return ce.Code, ce.Reason, true
	}
	return 0, "", false
}

// LocalAddr returns the underlying connection's local address.
func (c *Conn) LocalAddr() net.Addr { return c.nc.LocalAddr() }

// RemoteAddr returns the underlying connection's remote address.
func (c *Conn) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }

// SetDeadline sets the underlying connection's read and write deadlines.
func (c *Conn) SetDeadline(t time.Time) error { return c.nc.SetDeadline(t) }

// SetReadDeadline sets the underlying connection's read deadline.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.nc.SetReadDeadline(t) }

// SetWriteDeadline sets the underlying connection's write deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.nc.SetWriteDeadline(t) }
