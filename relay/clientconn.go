package relay

import (
	"bufio"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/tracing"
)

// connInfo is what the relay learned about a client connection before its session started,
// and the limit slots it holds, shared by the socket and the TLS connection over it.
type connInfo struct {
	peer   netip.AddrPort // the TCP peer
	client netip.AddrPort // the player, after a trusted PROXY header or forwarded-for header
	tls    gossl.Conn     // the TLS server connection for wss, for the log line
	// movedTLS is what the end line says of the TLS session of a wss session moved in from an
	// upgrade's old process (the handshake ran there); nil otherwise.
	movedTLS *gossl.ConnState
	claims   *access.Claims // the token verified during the upgrade; nil: none (always for raw TCP)
	// country is the client's country code a trusted proxy's header said during the upgrade
	// (countryFromHeaders); "": none believed (always for raw TCP).
	country string
	// bridge is the local address of the player's moonbridge client bridge (ws.BridgeHeader),
	// where a drain sends the player back; zero: none (raw TCP, another WebSocket client).
	bridge netip.AddrPort
	// earlyData, rawStream: the WebSocket upgrade agreed on them (ws.Conn.EarlyData, RawStream).
	earlyData, rawStream bool
	// trace is the join's trace (tracing.go); nil: not traced.
	trace *tracing.Join
	// deadline is accept + the handshake timeout: TLS, the upgrade and the Minecraft hello must
	// all be done by then. timer closes the connection at deadline until the session starts
	// (nil from then on; mu guards it after the listener set it).
	deadline time.Time
	timer    *time.Timer
	reported atomic.Bool // a refusal was logged and counted; the first one says why
	// untrack takes the connection off the memory guard's handshakes in progress (handshakes.go);
	// nil while it is not on them.
	untrack func()

	mu        sync.Mutex
	freeTotal func() // gives back the total slot; nil once given back
	addr      netip.Addr
	freeAddr  func() // gives back addr's slot; nil while no address is counted
	closed    bool
}

// clientConn is an accepted connection: the bytes peeked while sniffing are read first, and
// Close releases the connection's limit slots once.
type clientConn struct {
	net.Conn
	info   *connInfo
	reader *bufio.Reader // holds the sniffed bytes; nil once they are known to be consumed
}

// sniffBufferSize holds a PROXY header (at most clientaddr.DefaultMaxHeader) or a handshake peek.
const sniffBufferSize = 2048

func newClientConn(raw net.Conn, release func()) *clientConn {
	peer := addrPortOf(raw.RemoteAddr())
	c := &clientConn{Conn: raw, info: &connInfo{peer: peer, client: peer, freeTotal: release}}
	c.reader = bufio.NewReaderSize(raw, sniffBufferSize)
	return c
}

// Read drains the sniffed bytes, then reads the socket directly.
func (c *clientConn) Read(p []byte) (int, error) {
	if c.reader != nil {
		if c.reader.Buffered() > 0 {
			return c.reader.Read(p)
		}
		c.reader = nil
	}
	return c.Conn.Read(p)
}

// socket is the accepted socket once the sniffed bytes are consumed (nil before), for reading
// the player's bytes without this wrapper.
func (c *clientConn) socket() net.Conn {
	if c.reader != nil && c.reader.Buffered() > 0 {
		return nil
	}
	return c.Conn
}

// takeBuffered is what was read from the socket (while sniffing) that nobody has consumed yet,
// for a new owner of the socket; the connection lets go of its reader (and its 2 KiB buffer,
// which an idle session would otherwise keep). b is valid until the next read of c.
func (c *clientConn) takeBuffered() (b []byte) {
	if c.reader != nil {
		b, _ = c.reader.Peek(c.reader.Buffered())
		c.reader = nil
	}
	return b
}

// RemoteAddr is the player's address (after PROXY or forwarded-for), so net/http and the
// session log see the player rather than the CDN.
func (c *clientConn) RemoteAddr() net.Addr {
	return net.TCPAddrFromAddrPort(c.info.client)
}

// CloseWrite half-closes the socket (a TCP FIN), so a backend that has finished sending does
// not cut off a player who still is; without a half-close it closes.
func (c *clientConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

// Close closes the socket and releases the limit slots.
func (c *clientConn) Close() error {
	err := c.Conn.Close()
	c.info.release()
	return err
}

// claim makes addr the address the connection is counted under. It takes addr's slot before it
// gives back the one it held, so the connection is never counted nowhere, and a client named by
// a trusted PROXY or forwarded header is refused when its own address is over the limit.
func (i *connInfo) claim(ctr *counter, addr netip.Addr) error {
	addr = addr.Unmap()
	i.mu.Lock()
	held := i.addr
	i.mu.Unlock()
	if held == addr {
		return nil
	}
	free, err := ctr.acquireAddr(addr)
	if err != nil {
		return err
	}
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		free()
		return net.ErrClosed
	}
	old := i.freeAddr
	i.addr, i.freeAddr = addr, free
	i.mu.Unlock()
	if old != nil {
		old()
	}
	return nil
}

// setClient records who the player is, under the lock: the handshake timer may be reading it.
func (i *connInfo) setClient(client netip.AddrPort) {
	i.mu.Lock()
	i.client = client
	i.mu.Unlock()
}

// clientAddr is the player's address for a goroutine other than the connection's own.
func (i *connInfo) clientAddr() netip.AddrPort {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.client
}

// startSession stops the handshake timer and lets go of it (an idle session would keep it for
// its whole life); false means it fired first and closed the connection.
func (i *connInfo) startSession() bool {
	i.leaveHandshakes()
	timer := i.takeTimer()
	started := timer == nil || timer.Stop()
	if started {
		i.trace.Hold() // the session ends it (tracing.go)
	}
	return started
}

// takeTimer is the handshake timer, which the connection no longer holds; nil once taken.
func (i *connInfo) takeTimer() *time.Timer {
	i.mu.Lock()
	defer i.mu.Unlock()
	timer := i.timer
	i.timer = nil
	return timer
}

// leaveHandshakes takes the connection off the handshakes in progress, if it is on them.
func (i *connInfo) leaveHandshakes() {
	if i.untrack != nil {
		i.untrack()
	}
}

// release gives back every slot the connection holds, once, and stops the handshake timer.
func (i *connInfo) release() {
	i.closeTrace()
	if timer := i.takeTimer(); timer != nil {
		timer.Stop()
	}
	i.leaveHandshakes()
	i.mu.Lock()
	freeTotal, freeAddr := i.freeTotal, i.freeAddr
	i.freeTotal, i.freeAddr, i.closed = nil, nil, true
	i.mu.Unlock()
	if freeTotal != nil {
		freeTotal()
	}
	if freeAddr != nil {
		freeAddr()
	}
}

func addrPortOf(a net.Addr) netip.AddrPort {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.AddrPort()
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap
}

// connQueue is a net.Listener fed by the sniffing listener, for net/http's Serve.
type connQueue struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newConnQueue(addr net.Addr) *connQueue {
	return &connQueue{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// push hands conn to the HTTP server, or closes it when the queue is closed.
func (q *connQueue) push(conn net.Conn) {
	select {
	case q.conns <- conn:
	case <-q.done:
		conn.Close()
	}
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.done:
		return nil, net.ErrClosed
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

func (q *connQueue) Addr() net.Addr { return q.addr }

// tlsState is what the end line says of the session's TLS, false without TLS.
func (i *connInfo) tlsState() (gossl.ConnState, bool) {
	switch {
	case i.tls != nil:
		return i.tls.State(), true
	case i.movedTLS != nil:
		return *i.movedTLS, true
	}
	return gossl.ConnState{}, false
}
