package ws

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// DialConfig says where and how a client connects. Address, ServerName and
// Host default to the URL's host but can each be set apart, e.g. to dial a
// CDN edge's IP while naming the site in SNI and Host.
type DialConfig struct {
	URL              string      // ws://host[:port]/path or wss://...
	Address          string      // host:port to dial; default from URL
	LocalAddr        netip.Addr  // the address to dial from; zero: the system's choice
	ServerName       string      // TLS server name; default TLSConfig's, then the URL host
	Host             string      // Host header; default the URL host[:port]
	Header           http.Header // extra request headers (an auth token)
	Subprotocol      string      // offered when set; the server must accept it (or a mode below)
	TLSConfig        *tls.Config // for wss; cloned, nil means defaults
	HandshakeTimeout time.Duration
	Conn             Config
	// EarlyData, when set, is offered in the upgrade request (EarlyDataPrefix; at most
	// MaxEarlyData bytes): the stream's first bytes, which a server that takes them acts on while
	// its answer travels back (Conn.EarlyData). Not taken, they are the caller's to send.
	EarlyData []byte
	// RawStream offers the raw stream (RawStreamProtocol): no frames after the 101 when the
	// server agrees (Conn.RawStream).
	RawStream bool
}

// Dial connects, performs the opening handshake and returns a client Conn
// with TCP_NODELAY on. A refused upgrade is a *HandshakeError.
func Dial(ctx context.Context, cfg DialConfig) (*Conn, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("ws: dial: %w", err)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, fmt.Errorf("ws: dial: scheme %q is not ws or wss", u.Scheme)
	}
	if len(cfg.EarlyData) > MaxEarlyData {
		return nil, fmt.Errorf("ws: dial: %d bytes of early data, over MaxEarlyData (%d)", len(cfg.EarlyData), MaxEarlyData)
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.HandshakeTimeout)
	defer cancel()
	nc, err := dialTransport(ctx, u, cfg)
	if err != nil {
		return nil, err
	}
	c, err := handshake(ctx, nc, u, cfg)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// dialTransport opens TCP (and TLS for wss) to the dial address.
func dialTransport(ctx context.Context, u *url.URL, cfg DialConfig) (net.Conn, error) {
	addr := cfg.Address
	if addr == "" {
		addr = hostWithPort(u)
	}
	var d net.Dialer
	if cfg.LocalAddr.IsValid() {
		d.LocalAddr = net.TCPAddrFromAddrPort(netip.AddrPortFrom(cfg.LocalAddr, 0))
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ws: dial: %w", err)
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true) // batching is the encoder's job, not Nagle's
	}
	if u.Scheme == "ws" {
		return nc, nil
	}
	tlsCfg := &tls.Config{}
	if cfg.TLSConfig != nil {
		tlsCfg = cfg.TLSConfig.Clone()
	}
	if cfg.ServerName != "" {
		tlsCfg.ServerName = cfg.ServerName
	} else if tlsCfg.ServerName == "" {
		tlsCfg.ServerName = u.Hostname()
	}
	tc := tls.Client(nc, tlsCfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("ws: dial: tls: %w", err)
	}
	return tc, nil
}

func hostWithPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "wss" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// handshake sends the upgrade request and checks the 101 response. Bytes
// the server sent right behind the response are kept for the first Read.
func handshake(ctx context.Context, nc net.Conn, u *url.URL, cfg DialConfig) (*Conn, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	key := newChallengeKey()
	req := upgradeRequest(u, cfg, key)
	bw := bufio.NewWriter(nc)
	if err := req.Write(bw); err != nil {
		return nil, fmt.Errorf("ws: handshake: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("ws: handshake: %w", err)
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return nil, &HandshakeError{Reason: err.Error()}
	}
	err = checkUpgradeResponse(resp, key, cfg)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if n := br.Buffered(); n > 0 {
		early, _ := br.Peek(n)
		nc = &prefixConn{Conn: nc, prefix: append([]byte(nil), early...)}
	}
	_ = nc.SetDeadline(time.Time{})
	return newConn(nc, RoleClient, cfg.Conn, resp.Header.Get("Sec-WebSocket-Protocol")), nil
}

func upgradeRequest(u *url.URL, cfg DialConfig, key string) *http.Request {
	h := make(http.Header, len(cfg.Header)+5)
	for k, vs := range cfg.Header {
		h[k] = vs
	}
	h.Set("Upgrade", "websocket")
	h.Set("Connection", "Upgrade")
	h.Set("Sec-WebSocket-Key", key)
	h.Set("Sec-WebSocket-Version", "13")
	if offer := offerValues(cfg.EarlyData, cfg.RawStream, cfg.Subprotocol); len(offer) > 0 {
		h.Set("Sec-WebSocket-Protocol", strings.Join(offer, ", "))
	}
	host := cfg.Host
	if host == "" {
		host = u.Host
	}
	ru := &url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	if ru.Path == "" {
		ru.Path = "/"
	}
	return &http.Request{Method: http.MethodGet, URL: ru, Host: host, Header: h,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}

func checkUpgradeResponse(resp *http.Response, key string, cfg DialConfig) error {
	fail := func(reason string) error { return &HandshakeError{StatusCode: resp.StatusCode, Reason: reason} }
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return &HandshakeError{StatusCode: resp.StatusCode, Reason: resp.Status, Text: refusalText(resp)}
	case !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket"):
		return fail("response lacks Upgrade: websocket")
	case resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key):
		return fail("wrong Sec-WebSocket-Accept")
	case resp.Header.Get("Sec-WebSocket-Extensions") != "":
		return fail("server chose an extension that was not offered")
	case !offered(resp.Header.Get("Sec-WebSocket-Protocol"), cfg):
		return fail("server chose a subprotocol that was not offered")
	}
	return nil
}

// offered says whether a server's choice is one the request allowed: the configured
// subprotocol (or none, when none is configured), or a mode token that was offered.
func offered(chosen string, cfg DialConfig) bool {
	return chosen == cfg.Subprotocol || allowed(chosen, len(cfg.EarlyData) > 0, cfg.RawStream)
}

func newChallengeKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// acceptKey is the RFC's Sec-WebSocket-Accept for a challenge key.
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// prefixConn returns bytes read ahead during the handshake before reading
// the connection again.
type prefixConn struct {
	net.Conn
	prefix []byte
}

// CloseWrite half-closes the connection under it when it can (a raw stream's SendClose).
func (p *prefixConn) CloseWrite() error {
	if cw, ok := p.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// maxRefusalText bounds what is read of a refusal's body for HandshakeError.Text.
const maxRefusalText = 512

// refusalText is the first line of resp's body when it is plain text of at most maxRefusalText
// bytes; "" for anything else (a CDN's HTML error page).
func refusalText(resp *http.Response) string {
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType != "text/plain" || resp.ContentLength > maxRefusalText {
		return ""
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRefusalText+1))
	if err != nil || len(body) > maxRefusalText || !utf8.Valid(body) {
		return ""
	}
	line, _, _ := strings.Cut(string(body), "\n")
	return strings.TrimSpace(line)
}
