// Package client is the benchmark's player: a transport that reaches the relay (or the backend
// directly) and a session that logs in and plays a traffic profile, checking every byte that
// comes back.
package client

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
)

// Stream is a connected byte stream: raw TCP, or the payload of a ws/wss connection.
type Stream interface {
	io.Reader
	io.Writer
	io.Closer
}

// Dialer opens streams to one target over one transport.
type Dialer interface {
	Dial(ctx context.Context) (Stream, error)
}

// Transports the benchmark knows.
const (
	TransportTCP = "tcp"
	TransportWS  = "ws"
	TransportWSS = "wss"
)

// NewDialer returns the dialer for transport to target: host:port for tcp, a ws:// or wss://
// URL for the others.
func NewDialer(transport, target string) (Dialer, error) {
	switch transport {
	case TransportTCP:
		return TCPDialer{Addr: target}, nil
	case TransportWS, TransportWSS:
		return newWebSocketDialer(transport, target)
	}
	return nil, fmt.Errorf("client: unknown transport %q (want tcp, ws or wss)", transport)
}

// NewDialerFrom is NewDialer whose every Dial starts from the address next hands out, so that
// players come from many addresses (on loopback: anywhere in 127.0.0.0/8).
func NewDialerFrom(transport, target string, next func() netip.Addr) (Dialer, error) {
	d, err := NewDialer(transport, target)
	if err != nil {
		return nil, err
	}
	s, ok := d.(sourceable)
	if !ok {
		return nil, fmt.Errorf("client: %T cannot choose its source address", d)
	}
	return sourcedDialer{d: s, next: next}, nil
}

// sourceable is a Dialer that can start from a given address.
type sourceable interface {
	from(local netip.Addr) Dialer
}

type sourcedDialer struct {
	d    sourceable
	next func() netip.Addr
}

func (s sourcedDialer) Dial(ctx context.Context) (Stream, error) {
	return s.d.from(s.next()).Dial(ctx)
}

// TCPDialer connects with TCP_NODELAY, as Minecraft clients and the relays do, from Local when
// it is set.
type TCPDialer struct {
	Addr  string
	Local netip.Addr
}

func (d TCPDialer) from(local netip.Addr) Dialer { d.Local = local; return d }

func (d TCPDialer) Dial(ctx context.Context) (Stream, error) {
	var nd net.Dialer
	if d.Local.IsValid() {
		nd.LocalAddr = net.TCPAddrFromAddrPort(netip.AddrPortFrom(d.Local, 0))
	}
	c, err := nd.DialContext(ctx, "tcp", d.Addr)
	if err != nil {
		return nil, err
	}
	return c.(*net.TCPConn), nil // Go sets TCP_NODELAY by default
}
