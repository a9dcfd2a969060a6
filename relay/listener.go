package relay

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/ws"
)

// listener accepts connections on one address, finds out what each one speaks and hands it to
// the Minecraft path or to the HTTP server that performs the WebSocket upgrade.
type listener struct {
	srv  *Server
	cfg  Listener
	tcp  net.Listener
	log  zerolog.Logger
	ws   *connQueue // plain connections for the ws upgrade; nil if the listener has no ws
	wss  *connQueue // TLS connections for the upgrade; nil if the listener has no wss
	http []*http.Server
	// accepted is closed when the accept loop has returned: every connection it accepted has
	// been counted (Server.unslotted) by then.
	accepted chan struct{}
}

func (s *Server) listen(cfg Listener) (*listener, error) {
	tcp, err := s.bind(cfg.Addr)
	if err != nil {
		return nil, err
	}
	ln := &listener{srv: s, cfg: cfg, tcp: tcp, accepted: make(chan struct{})}
	ln.log = s.listenerLog(tcp.Addr().String())
	for _, p := range cfg.Protocols {
		switch p {
		case WS:
			ln.ws = ln.startHTTP(string(WS))
		case WSS:
			ln.wss = ln.startHTTP(string(WSS))
		}
	}
	ln.logStartup()
	return ln, nil
}

// logStartup writes one startup line per listener: its address, what it serves, the TLS
// provider for wss, and where players go (startupline.go). The fields carry the same for JSON
// logs, and for wss the TLS record layer and why the provider was chosen.
func (ln *listener) logStartup() {
	now := ln.srv.settings()
	addr := ln.tcp.Addr().String()
	routes := now.router.routesFor(ln.cfg.Protocols)
	ev := ln.log.Info().Str("addr", addr).Interface("protocols", ln.cfg.Protocols).Strs("routes", routes)
	provider := ""
	if (ln.ws != nil || ln.wss != nil) && (ln.cfg.EarlyData > 0 || ln.cfg.RawStream) { // the bridge's modes
		ev.Int64("early_data", int64(ln.cfg.EarlyData)).Bool("raw_stream", ln.cfg.RawStream)
	}
	if ln.wss != nil {
		provider = now.TLS.Provider()
		ev.Str("tls_provider", provider).Str("tls_record_layer", now.TLS.RecordLayer()).Str("reason", now.TLSReason)
	}
	ev.Msg(startupLine(addr, ln.cfg.Protocols, provider, routes))
}

// listenerLog is the logger of the listener on addr (and of a session an upgrade's old process
// accepted there).
func (s *Server) listenerLog(addr string) zerolog.Logger {
	return s.log.With().Str("listener", addr).Logger()
}

// startHTTP runs an HTTP server for the WebSocket upgrade over a queue of accepted connections.
// Its ErrorLog, from ws, writes net/http's own errors to the listener's logger.
func (ln *listener) startHTTP(protocol string) *connQueue {
	queue := newConnQueue(ln.tcp.Addr())
	wsCfg := ln.srv.settings().WebSocket
	wsCfg.Logger = ln.log
	wsCfg.Admit = ln.admit
	wsCfg.ServesPath = ln.servesPath
	wsCfg.Subprotocols = append([]string{StreamSubprotocol}, wsCfg.Subprotocols...) // ours first
	wsCfg = ln.modes(wsCfg)
	server := ws.NewServer(wsCfg, func(c *ws.Conn, r *http.Request) { ln.serveWebSocket(protocol, c, r) })
	httpServer := server.HTTPServer()
	httpServer.Handler = ln.landing(protocol, httpServer.Handler)
	httpServer.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c.(*httpConn))
	}
	ln.http = append(ln.http, httpServer)
	ln.srv.wg.Add(1)
	go func() { defer ln.srv.wg.Done(); httpServer.Serve(queue) }()
	return queue
}

// handle runs the start of a connection: limits, PROXY header, protocol sniffing. An untrusted
// peer is the client itself, so its address is counted from accept: a connection that has not
// said anything yet counts as much as a session. A trusted peer (a load balancer, a CDN) carries
// many players, so it is counted under the address it names (claim), once it has named one.
func (ln *listener) handle(raw net.Conn) {
	if ln.refuseBlocked(raw) {
		ln.srv.unslotted.Add(-1)
		return
	}
	pipe.SetNoDelay(raw)
	accepted := time.Now()
	release, err := ln.srv.counter.acquireTotal()
	ln.srv.unslotted.Add(-1) // counted in the total from here on, or refused
	if err != nil {
		ln.refuseLimit(newClientConn(raw, func() {}), err)
		return
	}
	conn := newClientConn(raw, release)
	conn.info.trace = ln.srv.tracer.Start(accepted)
	defer ln.recoverConn(conn) // a panic closes conn, which gives its limit slots back
	peer := conn.info.peer.Addr().Unmap()
	if !ln.srv.settings().TrustedProxies.Contains(peer) {
		if err := conn.info.claim(ln.srv.counter, peer); err != nil {
			ln.refuseLimit(conn, err)
			return
		}
	}
	ln.startHandshakeClock(conn, accepted)
	raw.SetReadDeadline(earliest(accepted.Add(ln.srv.settings().limits.SniffTimeout), conn.info.deadline))
	if err := ln.readProxyHeader(conn); err != nil {
		ln.refuse(conn, refusedProxy, err)
		return
	}
	if conn.info.client.Addr() != conn.info.peer.Addr() && !ln.admitNamed(conn) {
		return
	}
	protocol, err := ln.sniff(conn)
	if err != nil {
		ln.sniffFailed(conn, err)
		return
	}
	raw.SetReadDeadline(time.Time{})
	traceAccepted(conn.info, protocol, accepted)
	ln.dispatch(protocol, conn)
}

// admitNamed checks the player a trusted PROXY header named: refused when it is on the block
// list or over its limits.
func (ln *listener) admitNamed(conn *clientConn) bool {
	if ln.srv.isBlocked(conn.info.client.Addr()) {
		ln.refuseCheap(conn, refusedBlocked, errBlocked)
		return false
	}
	if err := conn.info.claim(ln.srv.counter, conn.info.client.Addr()); err != nil {
		ln.refuseLimit(conn, err)
		return false
	}
	return true
}

// refuseBlocked closes a connection from an address on the block list before reading a byte
// of it, and says whether it did. A trusted proxy is never refused, also when its IPv6 network
// is blocked for a player in it.
func (ln *listener) refuseBlocked(raw net.Conn) bool {
	peer := addrPortOf(raw.RemoteAddr())
	if !ln.srv.isBlocked(peer.Addr()) || ln.srv.settings().TrustedProxies.Contains(peer.Addr().Unmap()) {
		return false
	}
	ln.srv.cheapRefusal(ln.log, refusedBlocked, peer, errBlocked)
	raw.Close()
	return true
}

var (
	errBlocked = errors.New("address on the block list")
	errGarbage = errors.New("first bytes are not Minecraft, nor what else the listener serves")
)

// sniffFailed closes a connection that said nothing useful: a timeout is a refusal, garbage a
// cheap refusal that counts toward the block list, a peer that closed at once (a TCP health
// check, a port scan) only a debug line.
func (ln *listener) sniffFailed(conn *clientConn, err error) {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		ln.refuse(conn, refusedSniffTimeout, err)
		return
	case errors.Is(err, errGarbage):
		ln.srv.strike(ln.log, conn.info.client.Addr()) // before the close, as in refuseMalformed
		ln.refuseCheap(conn, refusedGarbage, err)
		return
	}
	ln.log.Debug().Str("client", conn.info.client.String()).Err(err).Msg("connection closed before it said anything")
	conn.Close()
}

// startHandshakeClock closes conn if it has not become a session by accept + the handshake
// timeout, whatever it is doing then (TLS handshake, HTTP upgrade, Minecraft hello): net/http
// sets read deadlines of its own during the upgrade, so a deadline alone would not hold. Until
// then the connection is a handshake in progress, which the memory guard may shed (handshakes.go).
func (ln *listener) startHandshakeClock(conn *clientConn, accepted time.Time) {
	conn.info.deadline = accepted.Add(ln.srv.settings().limits.HandshakeTimeout)
	ln.srv.mem.handshakes.track(conn.info, accepted, func() { ln.refuse(conn, refusedMemoryShed, errShed) })
	conn.info.timer = time.AfterFunc(time.Until(conn.info.deadline), func() {
		if ln.srv.ctx.Err() != nil { // shutting down: closing it is all there is to do
			conn.Close()
			return
		}
		ln.refuse(conn, refusedHandshakeTimeout, errHandshakeTimeout)
	})
}

var errHandshakeTimeout = errors.New("handshake not done within the handshake timeout")

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// refuse reports a refusal and closes the connection.
func (ln *listener) refuse(conn *clientConn, reason string, err error) {
	ln.report(conn.info, conn.info.clientAddr(), reason, err)
	conn.Close()
}

// refuseCheap counts a cheap refusal and closes the connection.
func (ln *listener) refuseCheap(conn *clientConn, reason string, err error) {
	ln.reportCheap(conn.info, conn.info.clientAddr(), reason, err)
	conn.Close()
}

// reportCheap counts a cheap refusal (refusal.go) once per connection, as report does others.
func (ln *listener) reportCheap(info *connInfo, client netip.AddrPort, reason string, err error) {
	if info.reported.CompareAndSwap(false, true) {
		info.refuseTrace(reason, err)
		ln.srv.cheapRefusal(ln.log, reason, client, err)
	}
}

// report logs and counts a refusal once per connection: the first reason found wins, and what
// follows from it (a TLS handshake failing on a socket the timer closed) is not counted again.
func (ln *listener) report(info *connInfo, client netip.AddrPort, reason string, err error) {
	if info.reported.CompareAndSwap(false, true) {
		info.refuseTrace(reason, err)
		ln.srv.refusal(ln.log, reason, client, err)
	}
}

func (ln *listener) dispatch(protocol Protocol, conn *clientConn) {
	switch protocol {
	case WS:
		ln.ws.push(&httpConn{clientConn: conn, ln: ln})
	case WSS:
		ln.handshakeTLS(conn)
	default:
		if err := conn.info.claim(ln.srv.counter, conn.info.client.Addr()); err != nil {
			ln.refuseLimit(conn, err)
			return
		}
		ln.srv.runSession(ln, string(Minecraft), tcpDownstream{conn}, conn.info, "")
	}
}

// handshakeTLS runs the TLS handshake here rather than on net/http's first read, so that a
// failure or a timeout is logged and counted, then hands the connection to the upgrade.
func (ln *listener) handshakeTLS(conn *clientConn) {
	tlsConn := ln.srv.settings().TLS.Wrap(conn)
	conn.info.tls = tlsConn
	conn.SetDeadline(conn.info.deadline)
	start := conn.info.trace.Now()
	err := tlsConn.HandshakeContext(ln.srv.ctx)
	traceTLS(conn.info, start, err)
	if err != nil {
		reason := refusedTLS
		if errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(conn.info.deadline) {
			reason = refusedHandshakeTimeout
		}
		ln.refuse(&clientConn{Conn: tlsConn, info: conn.info}, reason, err)
		return
	}
	conn.SetDeadline(time.Time{})
	ln.wss.push(&httpConn{clientConn: &clientConn{Conn: tlsConn, info: conn.info}, ln: ln})
}

// readProxyHeader reads a PROXY header from trusted peers when the listener accepts them.
func (ln *listener) readProxyHeader(conn *clientConn) error {
	if ln.cfg.Proxy == ProxyOff {
		return nil
	}
	peer := conn.info.peer.Addr().Unmap()
	trusted := ln.srv.settings().TrustedProxies.Contains(peer)
	if !trusted && ln.cfg.Proxy == ProxyRefuseUntrusted {
		if clientaddr.StartsLikeHeader(conn.reader) {
			return errors.New("PROXY header from untrusted peer " + peer.String())
		}
		return nil
	}
	if !trusted && !clientaddr.StartsLikeHeader(conn.reader) {
		return nil
	}
	header, err := clientaddr.ReadHeader(conn.reader, ln.srv.settings().limits.MaxProxyHeader)
	if err != nil {
		return err
	}
	// A header without a client address (LOCAL, v1 UNKNOWN, v2 UNSPEC or UDP) leaves the
	// connection's own addresses standing, as the specification says.
	if trusted && header.Command == clientaddr.Relayed && header.Source.IsValid() {
		conn.info.setClient(header.Source)
	}
	return nil
}

// sniff decides the protocol from the first bytes: a TLS handshake record is wss, an HTTP
// request line (any method token, then a space) is ws, the start of a Minecraft hello (a
// handshake frame or a legacy 0xFE ping) Minecraft, and anything else is errGarbage. A
// listener that serves one protocol leaves it to that protocol to refuse what is not its own.
func (ln *listener) sniff(conn *clientConn) (Protocol, error) {
	if len(ln.cfg.Protocols) == 1 {
		return ln.cfg.Protocols[0], nil
	}
	first, err := conn.reader.Peek(1)
	if err != nil {
		return "", err
	}
	switch {
	case first[0] == 0x16 && ln.wss != nil:
		return WSS, nil
	case ln.ws != nil && startsLikeHTTP(conn.reader):
		return WS, nil
	}
	if err := startsLikeMinecraft(conn.reader); err != nil {
		return "", err
	}
	return Minecraft, nil
}

// startsLikeMinecraft checks the first bytes with mc.CheckHelloStart, which needs at most 4:
// it peeks one byte more only while they do not tell, so it never waits for bytes a Minecraft
// client does not send, and a client whose hello came in one read costs no read more.
func startsLikeMinecraft(r *bufio.Reader) error {
	for {
		b, _ := r.Peek(r.Buffered())
		switch err := mc.CheckHelloStart(b); err {
		case nil:
			return nil
		case mc.ErrNotHello:
			return errGarbage
		}
		if _, err := r.Peek(len(b) + 1); err != nil {
			return err
		}
	}
}

// maxMethodLen bounds the method token sniff waits for; longer is not HTTP to us.
const maxMethodLen = 16

// startsLikeHTTP says whether r starts with a method token and a space ("GET ", "HEAD ",
// "POST ", ...). It peeks one byte more at a time, so it never waits for bytes a Minecraft
// client does not send: a handshake frame's first byte is its length (at least 0x80 when the
// frame is 128 bytes or more) and its second the packet id 0x00, neither of them a token
// character, and a legacy ping starts with 0xFE.
func startsLikeHTTP(r *bufio.Reader) bool {
	for n := 1; n <= maxMethodLen+1; n++ {
		b, err := r.Peek(n)
		if err != nil {
			return false
		}
		switch c := b[n-1]; {
		case c == ' ':
			return n > 1
		case !ws.IsTokenChar(c):
			return false
		}
	}
	return false
}

func (ln *listener) close() {
	ln.tcp.Close()
	for _, h := range ln.http {
		h.Close()
	}
}

// admit refuses a WebSocket client before the upgrade when the address its forwarded headers
// name is over its limit (HTTP 429 with the reason) or access control refuses it (401 or 403
// without a reason, access.go).
func (ln *listener) admit(r *http.Request) (int, string) {
	conn := r.Context().Value(connKey{}).(*httpConn)
	client, country := ln.clientFromHeaders(conn.info, r), ln.countryFromHeaders(conn.info, r)
	if err := conn.info.claim(ln.srv.counter, client.Addr()); err != nil {
		ln.report(conn.info, client, limitReason(err), err)
		ln.srv.refused(ln.log, client.Addr(), err)
		return http.StatusTooManyRequests, err.Error()
	}
	conn.info.setClient(client)
	conn.info.country = country
	return ln.admitAccess(conn.info, r)
}

// believesHeaders says whether the request's forwarded headers (address, country) are believed:
// its peer is a trusted proxy and it carries the forward secret, when one is set.
func (ln *listener) believesHeaders(info *connInfo, r *http.Request) bool {
	conf := ln.srv.settings()
	return conf.TrustedProxies.Contains(info.client.Addr()) && conf.ForwardSecret.Admits(r.Header)
}

// clientFromHeaders applies forwarded-for headers when believesHeaders.
func (ln *listener) clientFromHeaders(info *connInfo, r *http.Request) netip.AddrPort {
	if !ln.believesHeaders(info, r) {
		return info.client
	}
	addr, _ := clientaddr.FromHeaders(info.client.Addr(), ln.srv.settings().TrustedProxies, ln.srv.settings().ClientIPHeaders, r.Header)
	if addr == info.client.Addr() {
		return info.client
	}
	return netip.AddrPortFrom(addr, 0)
}

// countryFromHeaders is the country code the country header says when believesHeaders, or "".
func (ln *listener) countryFromHeaders(info *connInfo, r *http.Request) string {
	if !ln.believesHeaders(info, r) {
		return ""
	}
	return clientaddr.Country(r.Header, ln.srv.settings().CountryHeader)
}

// serveWebSocket runs the session of an upgraded connection; a player its forwarded headers
// named after accept is checked against the block list first.
func (ln *listener) serveWebSocket(protocol string, c *ws.Conn, r *http.Request) {
	conn := r.Context().Value(connKey{}).(*httpConn)
	ln.traceUpgrade(conn.info, r)
	if ln.srv.isBlocked(conn.info.client.Addr()) {
		ln.reportCheap(conn.info, conn.info.client, refusedBlocked, errBlocked)
		c.CloseWithCode(ws.ClosePolicyViolation, "")
		return
	}
	if v := r.Header.Get(ws.BridgeHeader); v != "" {
		conn.info.bridge, _ = ws.ParseBridgeHeader(v) // a bad one: the player is not moved, which is all it risks
	}
	ln.noteModes(conn.info, c)
	ln.srv.runSession(ln, protocol, wsDownstream{Conn: c, under: conn.clientConn}, conn.info, r.URL.Path)
}

type connKey struct{}
