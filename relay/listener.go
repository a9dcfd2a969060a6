package relay

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/pipe"
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
}

func (s *Server) listen(cfg Listener) (*listener, error) {
	tcp, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	ln := &listener{srv: s, cfg: cfg, tcp: tcp}
	ln.log = s.log.With().Str("listener", tcp.Addr().String()).Logger()
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

// logStartup writes one startup line per listener, worded as the Java MoonBridge's were
// (docs/design.md, "Where this comes from"); a wss line names the TLS provider and why.
func (ln *listener) logStartup() {
	ev := ln.log.Info().Str("addr", ln.tcp.Addr().String()).Interface("protocols", ln.cfg.Protocols)
	switch {
	case ln.wss != nil:
		provider := ln.srv.now().TLS.Provider()
		ev.Str("tls_provider", provider).Str("reason", ln.srv.now().TLSReason).
			Msg("Listening for WebSocket (TLS via " + strings.ToUpper(provider) + ")")
	case ln.ws != nil:
		ev.Msg("Listening for WebSocket")
	default:
		ev.Msg("Listening for Minecraft")
	}
}

// startHTTP runs an HTTP server for the WebSocket upgrade over a queue of accepted connections.
func (ln *listener) startHTTP(protocol string) *connQueue {
	queue := newConnQueue(ln.tcp.Addr())
	wsCfg := ln.srv.now().WebSocket
	wsCfg.Logger = ln.log
	wsCfg.Admit = ln.admit
	server := ws.NewServer(wsCfg, func(c *ws.Conn, r *http.Request) { ln.serveWebSocket(protocol, c, r) })
	httpServer := server.HTTPServer()
	httpServer.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c.(*clientConn))
	}
	httpServer.ErrorLog = nil
	ln.http = append(ln.http, httpServer)
	ln.srv.wg.Add(1)
	go func() { defer ln.srv.wg.Done(); httpServer.Serve(queue) }()
	return queue
}

// handle runs the start of a connection: limits, PROXY header, protocol sniffing.
func (ln *listener) handle(raw net.Conn) {
	pipe.SetNoDelay(raw)
	release, err := ln.srv.counter.acquireTotal()
	if err != nil {
		ln.log.Warn().Str("peer", raw.RemoteAddr().String()).Err(err).Msg("connection refused")
		ln.srv.refuse(refusedTotal)
		raw.Close()
		return
	}
	conn := newClientConn(raw, release)
	raw.SetReadDeadline(time.Now().Add(ln.srv.now().limits.SniffTimeout))
	if err := ln.readProxyHeader(conn); err != nil {
		ln.log.Warn().Str("peer", raw.RemoteAddr().String()).Err(err).Msg("connection refused: PROXY header")
		ln.srv.refuse(refusedProxy)
		conn.Close()
		return
	}
	protocol, err := ln.sniff(conn)
	if err != nil {
		ln.log.Info().Str("client", conn.RemoteAddr().String()).Err(err).Msg("connection closed before it said anything useful")
		conn.Close()
		return
	}
	raw.SetReadDeadline(time.Time{})
	ln.dispatch(protocol, conn)
}

func (ln *listener) dispatch(protocol Protocol, conn *clientConn) {
	switch protocol {
	case WS:
		ln.ws.push(conn)
	case WSS:
		tlsConn := ln.srv.now().TLS.Server(conn)
		conn.info.tls = tlsConn
		ln.wss.push(&clientConn{Conn: tlsConn, info: conn.info})
	default:
		if !ln.admitTCP(conn) {
			return
		}
		ln.srv.runSession(ln, string(Minecraft), tcpDownstream{conn}, conn.info, "")
	}
}

// admitTCP applies the per-address limit to a Minecraft client (WebSocket clients get it in
// admit, after forwarded headers); over it, the connection is closed before the session.
func (ln *listener) admitTCP(conn *clientConn) bool {
	release, err := ln.srv.counter.acquireAddr(conn.info.client.Addr())
	if err != nil {
		ln.log.Warn().Str("client", conn.info.client.String()).Err(err).Msg("connection refused")
		ln.srv.refuse(refusedPerAddr)
		conn.Close()
		return false
	}
	conn.addRelease(release)
	return true
}

// readProxyHeader reads a PROXY header from trusted peers when the listener accepts them.
func (ln *listener) readProxyHeader(conn *clientConn) error {
	if ln.cfg.Proxy == ProxyOff {
		return nil
	}
	peer := conn.info.peer.Addr().Unmap()
	trusted := ln.srv.now().TrustedProxies.Contains(peer)
	if !trusted && ln.cfg.Proxy == ProxyReject {
		if startsLikeProxyHeader(conn.reader) {
			return errors.New("PROXY header from untrusted peer " + peer.String())
		}
		return nil
	}
	if !trusted && !startsLikeProxyHeader(conn.reader) {
		return nil
	}
	header, err := ReadProxyHeader(conn.reader, ln.srv.now().limits.MaxProxyHeader)
	if err != nil {
		return err
	}
	if trusted && header.Command == ProxyProxy {
		conn.info.client = header.Source
	}
	return nil
}

// startsLikeProxyHeader peeks for the v1 "PROXY " or the v2 signature's first bytes.
func startsLikeProxyHeader(r *bufio.Reader) bool {
	b, _ := r.Peek(5)
	return string(b) == "PROXY" || string(b) == "\r\n\r\n\x00"
}

// sniff decides the protocol from the first bytes: a TLS handshake record is wss, "GET " is
// ws, anything else is Minecraft (a handshake frame or a legacy 0xFE ping).
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
	case first[0] == 'G' && ln.ws != nil:
		if b, err := conn.reader.Peek(4); err == nil && string(b) == "GET " {
			return WS, nil
		}
	}
	return Minecraft, nil
}

func (ln *listener) close() {
	ln.tcp.Close()
	for _, h := range ln.http {
		h.Close()
	}
}

// admit refuses a WebSocket client before the upgrade when it is over its address limit.
func (ln *listener) admit(r *http.Request) (int, string) {
	conn := r.Context().Value(connKey{}).(*clientConn)
	client := ln.clientFromHeaders(conn.info, r)
	release, err := ln.srv.counter.acquireAddr(client.Addr())
	if err != nil {
		ln.log.Warn().Str("client", client.String()).Err(err).Msg("WebSocket upgrade refused")
		ln.srv.refuse(refusedPerAddr)
		return http.StatusTooManyRequests, err.Error()
	}
	conn.info.client = client
	conn.addRelease(release)
	return 0, ""
}

// clientFromHeaders applies forwarded-for headers when the peer is a trusted proxy.
func (ln *listener) clientFromHeaders(info *connInfo, r *http.Request) netip.AddrPort {
	addr, _ := ForwardedClient(info.client.Addr(), ln.srv.now().TrustedProxies, ln.srv.now().ClientIPHeaders, r.Header)
	if addr == info.client.Addr() {
		return info.client
	}
	return netip.AddrPortFrom(addr, 0)
}

func (ln *listener) serveWebSocket(protocol string, c *ws.Conn, r *http.Request) {
	info := r.Context().Value(connKey{}).(*clientConn).info
	ln.srv.runSession(ln, protocol, wsDownstream{c}, info, r.URL.Path)
}

type connKey struct{}
