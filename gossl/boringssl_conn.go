//go:build boringssl && cgo

package gossl

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/internal/boring"
	"github.com/moonbridge/moonbridge/internal/bufpool"
)

// readBufSize holds two full records: one socket read usually brings whole records, which one
// cgo call then opens together.
const readBufSize = 2 * smallBuf

// readPool holds the BoringSSL connections' ciphertext read buffers (readBufSize). They are
// kept apart from the seal buffers: a read buffer stays with its connection while the player
// is idle, and one that a big seal had filled would keep all its pages resident in every idle
// session; reads of player traffic touch only the first few.
var readPool = bufpool.New(readBufSize)

// boringConn is a server connection over a shim engine. Locks, always taken in this order:
// hsMu (the handshake), rmu (the read side and its ciphertext buffer), wmu (everything that
// writes ciphertext to the socket, so records leave in the order they were sealed).
type boringConn struct {
	raw net.Conn
	eng *boring.Engine

	hsMu   sync.Mutex
	hsDone bool
	hsErr  error
	state  ConnState

	rmu          sync.Mutex
	rbuf         *[]byte
	rpos, rend   int
	plainPending bool
	rerr         error

	wmu  sync.Mutex
	werr error

	closeOnce sync.Once
	closeErr  error
}

func newBoringConn(raw net.Conn, eng *boring.Engine) *boringConn {
	return &boringConn{raw: raw, eng: eng}
}

// HandshakeContext runs the handshake once; ctx's cancellation ends it by expiring the socket
// deadline.
func (c *boringConn) HandshakeContext(ctx context.Context) error {
	c.hsMu.Lock()
	defer c.hsMu.Unlock()
	if c.hsDone {
		return c.hsErr
	}
	stop := context.AfterFunc(ctx, func() { _ = c.raw.SetDeadline(aLongTimeAgo) })
	err := c.handshake()
	if !stop() && err != nil {
		err = &TLSError{Op: "handshake", Reason: ctx.Err().Error(), Err: ctx.Err()}
	}
	c.hsDone, c.hsErr = true, err
	return err
}

func (c *boringConn) handshake() error {
	if c.eng == nil {
		return &TLSError{Op: "handshake", Reason: "out of memory"}
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for {
		res, err := c.handshakeStep()
		if err != nil {
			return &TLSError{Op: "handshake", Reason: err.Error(), Err: err}
		}
		switch res.Status {
		case boring.OK:
			c.state = c.engineState()
			return nil
		case boring.Fatal:
			return &TLSError{Op: "handshake", Reason: res.Reason}
		case boring.Closed:
			return &TLSError{Op: "handshake", Reason: "peer sent close_notify", Err: io.EOF}
		}
		if err := c.fill(); err != nil {
			return &TLSError{Op: "handshake", Reason: "peer went away: " + err.Error(), Err: err}
		}
	}
}

// handshakeStep runs the engine on the input there is and sends what it produced. Its output
// buffer goes back to the pool before the handshake waits for the peer (fill): a client that
// stalls inside its ClientHello then holds no output buffer.
func (c *boringConn) handshakeStep() (boring.Result, error) {
	out := getBuf(smallBuf)
	defer putBuf(out)
	res := c.eng.Handshake(c.pendingInput(), *out)
	c.rpos += res.Consumed
	return res, c.send(*out, res)
}

func (c *boringConn) engineState() ConnState {
	st := c.eng.State()
	layer := RecordLayerSSL
	if st.AEADRecords {
		layer = RecordLayerAEAD
	}
	return ConnState{Provider: ProviderBoringSSL, Version: st.Version, CipherSuite: st.CipherSuite,
		Group: tls.CurveID(st.Group), ALPN: st.ALPN, ServerName: st.ServerName, Resumed: st.Resumed,
		RecordLayer: layer.String()}
}

// State reports the session's parameters.
func (c *boringConn) State() ConnState {
	c.hsMu.Lock()
	defer c.hsMu.Unlock()
	return c.state
}

// CanDetach is true: DetachBoring takes an established BoringSSL session onto an event loop.
func (c *boringConn) CanDetach() bool { return true }

func (c *boringConn) pendingInput() []byte {
	if c.rbuf == nil {
		return nil
	}
	return (*c.rbuf)[c.rpos:c.rend]
}

// fill reads the socket once into the ciphertext buffer (whose input the engine has taken).
func (c *boringConn) fill() error {
	if c.rbuf == nil {
		c.rbuf = readPool.Get()
	}
	n, err := c.raw.Read(*c.rbuf)
	c.rpos, c.rend = 0, n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// send writes what an engine call produced, and anything still waiting in the engine, to the
// socket. The caller holds wmu.
func (c *boringConn) send(out []byte, res boring.Result) error {
	for {
		if res.Produced > 0 {
			if _, err := c.raw.Write(out[:res.Produced]); err != nil {
				return err
			}
		}
		if res.OutPending == 0 {
			return nil
		}
		res = c.eng.Drain(out)
	}
}

// Read opens ciphertext straight into p: one cgo call per socket read.
func (c *boringConn) Read(p []byte) (int, error) {
	if err := c.HandshakeContext(context.Background()); err != nil {
		return 0, err
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.rerr != nil {
		return 0, c.rerr
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if c.rpos < c.rend || c.plainPending {
			if n, done := c.open(p); done {
				return n, c.rerr
			}
		}
		if err := c.fill(); err != nil {
			// A deadline is not the end of the stream: net/http interrupts its background read
			// with a past deadline before handing the connection over, as crypto/tls allows.
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return 0, err
			}
			c.rerr = readError(err)
			return 0, c.rerr
		}
	}
}

// open runs one engine call; done means Read returns (with data or the sticky error).
func (c *boringConn) open(p []byte) (n int, done bool) {
	res := c.eng.Open((*c.rbuf)[c.rpos:c.rend], p)
	c.rpos += res.Consumed
	c.plainPending = res.PlainPending > 0
	if res.OutPending > 0 { // an alert, or the answer to a TLS 1.3 KeyUpdate
		out := getBuf(smallBuf)
		c.wmu.Lock()
		_ = c.send(*out, boring.Result{OutPending: res.OutPending})
		c.wmu.Unlock()
		putBuf(out)
	}
	switch res.Status {
	case boring.Closed:
		c.rerr = io.EOF
	case boring.Fatal:
		c.rerr = &TLSError{Op: "read", Reason: res.Reason}
	}
	if res.Produced > 0 {
		return res.Produced, true
	}
	return 0, c.rerr != nil
}

// readError: the peer closed without close_notify, which a TLS reader must not take for the end.
func readError(err error) error {
	if err == io.EOF {
		return &TLSError{Op: "read", Reason: "peer closed without close_notify", Err: io.ErrUnexpectedEOF}
	}
	return err
}

// Write seals all of p with one cgo call and sends it with one socket write (MaxBatch bytes of p
// at a time).
func (c *boringConn) Write(p []byte) (int, error) {
	if err := c.HandshakeContext(context.Background()); err != nil {
		return 0, err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	written := 0
	for written < len(p) && c.werr == nil {
		n := c.seal(p[written:min(len(p), written+MaxBatch)])
		written += n
	}
	return written, c.werr
}

func (c *boringConn) seal(chunk []byte) int {
	buf := getBuf(boring.SealBound(len(chunk)))
	defer putBuf(buf)
	res := c.eng.Seal(chunk, *buf)
	if err := c.send(*buf, res); err != nil {
		c.werr = err
	} else if res.Status == boring.Fatal {
		c.werr = &TLSError{Op: "write", Reason: res.Reason}
	}
	return res.Consumed
}

// Close sends close_notify when it can do so without waiting behind a blocked Write, closes the
// socket and frees the engine.
func (c *boringConn) Close() error {
	c.closeOnce.Do(func() {
		c.sendCloseNotify()
		c.closeErr = c.raw.Close()
		if c.eng != nil {
			c.eng.Free()
		}
		c.rmu.Lock() // a Read blocked in the socket has returned now
		if c.rbuf != nil {
			readPool.Put(c.rbuf)
			c.rbuf = nil
		}
		c.rerr = net.ErrClosed
		c.rmu.Unlock()
	})
	return c.closeErr
}

func (c *boringConn) sendCloseNotify() {
	if !c.hsMu.TryLock() {
		return // a handshake is running; closing the socket ends it
	}
	established := c.hsDone && c.hsErr == nil
	c.hsMu.Unlock()
	if !established || !c.wmu.TryLock() {
		return
	}
	defer c.wmu.Unlock()
	var out [128]byte
	_ = c.raw.SetWriteDeadline(time.Now().Add(time.Second))
	_ = c.send(out[:], c.eng.Shutdown(out[:]))
	c.werr = net.ErrClosed
}

func (c *boringConn) LocalAddr() net.Addr                { return c.raw.LocalAddr() }
func (c *boringConn) RemoteAddr() net.Addr               { return c.raw.RemoteAddr() }
func (c *boringConn) SetDeadline(t time.Time) error      { return c.raw.SetDeadline(t) }
func (c *boringConn) SetReadDeadline(t time.Time) error  { return c.raw.SetReadDeadline(t) }
func (c *boringConn) SetWriteDeadline(t time.Time) error { return c.raw.SetWriteDeadline(t) }
