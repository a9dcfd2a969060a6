// Package client is the benchmark's player: a transport that reaches the relay (or the backend
// directly) and a session that logs in and plays a traffic profile, checking every byte that
// comes back.
package client

import (
	"context"
	"fmt"
	"io"
	"net"
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

// TCPDialer connects with TCP_NODELAY, as Minecraft clients and the relays do.
type TCPDialer struct{ Addr string }

func (d TCPDialer) Dial(ctx context.Context) (Stream, error) {
	var nd net.Dialer
	c, err := nd.DialContext(ctx, "tcp", d.Addr)
	if err != nil {
		return nil, err
	}
	return c.(*net.TCPConn), nil // Go sets TCP_NODELAY by default
}
