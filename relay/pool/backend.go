package pool

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// Backend is one Minecraft server a route can send players to.
type Backend struct {
	Addr string // HOST:PORT
	// ProxyProtocol is 0 for none, or 1 or 2 to send a PROXY header with the real client address
	// first (Paper, Velocity and BungeeCord accept it when configured to).
	ProxyProtocol int
}

// DialError says why no backend of a pool took the session; the relay answers the client
// with the fallback status or a disconnect message. It names every backend of the pool, in the
// order they were tried, with what went wrong there, so a dead first backend is not hidden behind the
// last one's error.
type DialError struct {
	Failures []BackendFailure
}

// BackendFailure is one backend that did not take a session, and why.
type BackendFailure struct {
	Addr string
	Err  error
}

// ErrBackendDown is a backend skipped because its health check says it is down.
var ErrBackendDown = errors.New("skipped: health check says down")

func (e *DialError) Error() string {
	if len(e.Failures) == 0 {
		return "no backend reachable: route has no backends"
	}
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = f.Addr + ": " + f.Err.Error()
	}
	return "no backend reachable: " + strings.Join(parts, "; ")
}

// Unwrap gives every failure to errors.Is and errors.As.
func (e *DialError) Unwrap() []error {
	errs := make([]error, len(e.Failures))
	for i, f := range e.Failures {
		errs[i] = f.Err
	}
	return errs
}

// PreambleError is a backend that accepted the connection but not the first bytes (PROXY
// header and handshake).
type PreambleError struct{ Err error }

func (e *PreambleError) Error() string { return "sending the handshake: " + e.Err.Error() }
func (e *PreambleError) Unwrap() error { return e.Err }

// writePreamble sends the PROXY header (if the backend wants one) and the handshake in one write.
func writePreamble(conn net.Conn, b Backend, client, local netip.AddrPort, first []byte) error {
	out, err := preamble(b, clientaddr.Header{Command: clientaddr.Relayed, Source: client, Destination: local}, first)
	if err == nil {
		_, err = conn.Write(out)
	}
	return err
}

// preamble is what a backend gets first: header in the PROXY version the backend wants (nothing
// when it wants none), then first.
func preamble(b Backend, header clientaddr.Header, first []byte) ([]byte, error) {
	var out []byte
	if b.ProxyProtocol != 0 {
		header.Version = b.ProxyProtocol
		var err error
		if out, err = header.Append(nil); err != nil {
			return nil, fmt.Errorf("PROXY header for %s: %w", b.Addr, err)
		}
	}
	return append(out, first...), nil
}
