package relay

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// Backend is one Minecraft server a route can send players to.
type Backend struct {
	Addr string // HOST:PORT
	// ProxyProtocol is 0 for none, or 1 or 2 to send a PROXY header with the real client address
	// first (Paper, Velocity and BungeeCord accept it when configured to).
	ProxyProtocol int
}

// DialError says why no backend of a route took the session; the relay answers the client
// with the fallback status or a disconnect message. It names every backend of the route, in the
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

// dialRoute connects to the first backend of route, in the order its Balance says, that accepts
// the connection and the first bytes (PROXY header and handshake); the next backend is tried
// only while no byte has reached the previous one, so a session is never replayed into a second
// server. Backends whose health
// check says down are skipped while another one is up; when none is up, all are tried in order,
// since a check can be wrong and a dial costs less than a refused player.
func (s *Server) dialRoute(route *Route, capture string, timeout time.Duration, client, local netip.AddrPort, first []byte) (net.Conn, *backendState, error) {
	dialErr := &DialError{}
	anyUp := route.anyBackendUp()
	for _, b := range route.dialOrder() {
		addr := b.addrFor(capture)
		if anyUp && !b.up.Load() {
			dialErr.Failures = append(dialErr.Failures, BackendFailure{Addr: addr, Err: ErrBackendDown})
			continue
		}
		conn, err := s.dialBackend(b, addr, timeout, client, local, first)
		if err != nil {
			dialErr.Failures = append(dialErr.Failures, BackendFailure{Addr: addr, Err: err})
			continue
		}
		return conn, b, nil
	}
	return nil, nil, dialErr
}

// dialBackend connects to one backend at addr (its address with the capture filled in) and
// sends it the first bytes; it times the dial and counts and logs a failure.
func (s *Server) dialBackend(b *backendState, addr string, timeout time.Duration, client, local netip.AddrPort, first []byte) (net.Conn, error) {
	start := time.Now()
	conn, err := (&net.Dialer{Timeout: timeout}).DialContext(s.ctx, "tcp", addr)
	s.backendMetrics.observeDial(b, time.Since(start))
	if err == nil {
		pipe.SetNoDelay(conn) // the relay writes whole batches
		if err = writePreamble(conn, b.Backend, client, local, first); err != nil {
			conn.Close()
			err = &PreambleError{Err: err}
		}
	}
	if err != nil {
		s.dialFailed(b, addr, client, err)
		return nil, err
	}
	return conn, nil
}

// dialFailed counts a failed dial by reason and logs it, at most a few lines per backend and
// period (the count has them all). A dial cut short by shutdown is neither.
func (s *Server) dialFailed(b *backendState, addr string, client netip.AddrPort, err error) {
	if s.ctx.Err() != nil {
		return
	}
	reason := dialFailureReason(err)
	s.backendMetrics.countFailure(b, reason)
	log := s.log.Sample(b.logSampler)
	log.Warn().Err(err).Str("route", b.route).Str("backend", addr).
		Str("reason", reason).Str("client", client.String()).Msg("backend dial failed")
}

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
