package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
)

// Backend is one Minecraft server a route can send players to.
type Backend struct {
	Addr string // HOST:PORT
	// ProxyProtocol is 0 for none, or 1 or 2 to send a PROXY header with the real client address
	// first (Paper, Velocity and BungeeCord accept it when configured to).
	ProxyProtocol int
}

// DialError says why no backend of a route took the session; the relay answers the client
// with the fallback status or a disconnect message.
type DialError struct {
	Tried []string // backend addresses in the order tried
	Err   error    // the last failure
}

func (e *DialError) Error() string {
	return fmt.Sprintf("no backend reachable (tried %v): %v", e.Tried, e.Err)
}

func (e *DialError) Unwrap() error { return e.Err }

// dialRoute connects to the first backend of route that accepts the connection and the first
// bytes (PROXY header and handshake); the next backend is tried only while no byte has reached
// the previous one, so a session is never replayed into a second server.
func dialRoute(ctx context.Context, route *Route, timeout time.Duration, client, local netip.AddrPort, first []byte) (net.Conn, Backend, error) {
	dialErr := &DialError{}
	for _, b := range route.Backends {
		dialErr.Tried = append(dialErr.Tried, b.Addr)
		conn, err := dialBackend(ctx, b, timeout)
		if err != nil {
			dialErr.Err = err
			continue
		}
		if err := writePreamble(conn, b, client, local, first); err != nil {
			conn.Close()
			dialErr.Err = err
			continue
		}
		return conn, b, nil
	}
	if dialErr.Err == nil {
		dialErr.Err = errors.New("route has no backends")
	}
	return nil, Backend{}, dialErr
}

func dialBackend(ctx context.Context, b Backend, timeout time.Duration) (net.Conn, error) {
	dialer := net.Dialer{Timeout: timeout}
	conn, err := dialer.DialContext(ctx, "tcp", b.Addr)
	if err != nil {
		return nil, err
	}
	pipe.SetNoDelay(conn) // the relay writes whole batches
	return conn, nil
}

// writePreamble sends the PROXY header (if the backend wants one) and the handshake in one write.
func writePreamble(conn net.Conn, b Backend, client, local netip.AddrPort, first []byte) error {
	var preamble []byte
	if b.ProxyProtocol != 0 {
		header := ProxyHeader{Version: b.ProxyProtocol, Command: ProxyProxy, Source: client, Destination: local}
		var err error
		if preamble, err = header.Append(nil); err != nil {
			return fmt.Errorf("PROXY header for %s: %w", b.Addr, err)
		}
	}
	preamble = append(preamble, first...)
	_, err := conn.Write(preamble)
	return err
}
