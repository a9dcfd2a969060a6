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
	// raw: the handshake agreed on a raw stream (RawStreamProtocol, EarlyRawProtocol): no frames,
	// no keepalive, the socket's bytes are the stream. earlyTaken: it agreed on early data. early:
	// on a server, the early data that no Read has returned yet (owned by the Read goroutine).
	raw        bool
	earlyTaken bool
	early      []byte

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
func NewConn(nc net.Conn, role Role, cfg Config) *Conn { return newConn(nc, role, cfg, "") }

// newConn is NewConn for a handshake that agreed on subprotocol, which may turn on the raw
// stream (and off the keepalive, which has no frame to send) or say the early data were taken.
func newConn(nc net.Conn, role Role, cfg Config, subprotocol string) *Conn {
	c := &Conn{nc: nc, role: role, subprotocol: subprotocol}
	c.earlyTaken, c.raw = modesOf(subprotocol)
	if c.raw {
		cfg.PingInterval = 0
	}
	c.cfg = cfg.withDefaults()
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

// RawStream says whether the handshake agreed on the raw stream: the bytes after the 101 are
// the stream itself, both ways, with no frame, no keepalive ping and no close frame (a close
// only closes, SendClose half-closes). doc.go, "Early data and the raw stream".
func (c *Conn) RawStream() bool { return c.raw }

// EarlyData says whether the handshake agreed on early data. On a server the stream starts with
// them: the first Reads return them, before any byte that came after the request. On a client the
// server has them: the caller must not send them again.
func (c *Conn) EarlyData() bool { return c.earlyTaken }

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
//
// A raw stream has no close frame: SendClose ends the stream to the peer instead (a TCP FIN, a
// TLS close_notify), and the Read that meets the peer's own end returns io.EOF.
func (c *Conn) SendClose(code CloseCode, reason string) error {
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.cfg.CloseTimeout))
	if err := c.writeClose(code, reason); err != nil || !c.raw {
		return err
	}
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
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
