package pool

import (
	"context"
	"net"
	"net/netip"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
)

// Request is what a session asks its pool for: a backend that took its first bytes.
type Request struct {
	Capture       string         // what the route's wildcard matched, for backends that name it (Capture)
	Timeout       time.Duration  // for each backend's dial
	Client, Local netip.AddrPort // the PROXY header's source and destination
	First         []byte         // the handshake and what followed it, sent in one write
}

// Choice is the backend that took a session.
type Choice struct {
	Addr string // its address, the capture filled in
	m    *member
}

// Track counts the session on its backend, for least-connections and the idle stop, until
// done is called.
func (c Choice) Track() (done func()) {
	c.m.active.Add(1)
	return func() { c.m.active.Add(-1) }
}

// Chosen is the backend of p at addr (a Choice.Addr, as an upgrade's old process chose it), to
// Track a session that came to this process already connected there; false when no backend of
// p has that address now (the route's backends changed), and the session is then not counted.
func (p *Pool) Chosen(addr string) (Choice, bool) {
	for _, m := range p.members {
		if m.names(addr) {
			return Choice{Addr: addr, m: m}, true
		}
	}
	return Choice{}, false
}

// Dial connects to the first backend of p, in the order its Balance says, that accepts the
// connection and the first bytes (PROXY header and handshake); the next backend is tried only
// while no byte has reached the previous one, so a session is never replayed into a second
// server. Backends whose health check says down are skipped while another one is up; when none
// is up, all are tried in order, since a check can be wrong and a dial costs less than a refused
// player. ctx is the server's: its end cuts a dial short, uncounted. The error is a *DialError.
func (p *Pool) Dial(ctx context.Context, req Request) (net.Conn, Choice, error) {
	dialErr := &DialError{}
	anyUp := p.anyUp()
	for _, m := range p.dialOrder() {
		addr := m.addrFor(req.Capture)
		if anyUp && !m.up.Load() {
			dialErr.Failures = append(dialErr.Failures, BackendFailure{Addr: addr, Err: ErrBackendDown})
			continue
		}
		conn, err := p.dialOne(ctx, m, addr, req)
		if err != nil {
			dialErr.Failures = append(dialErr.Failures, BackendFailure{Addr: addr, Err: err})
			continue
		}
		return conn, Choice{Addr: addr, m: m}, nil
	}
	return nil, Choice{}, dialErr
}

// dialOne connects to one backend at addr (its address with the capture filled in) and sends
// it the first bytes; it times the dial and counts and logs a failure.
func (p *Pool) dialOne(ctx context.Context, m *member, addr string, req Request) (net.Conn, error) {
	start := time.Now()
	conn, err := (&net.Dialer{Timeout: req.Timeout}).DialContext(ctx, "tcp", addr)
	p.env.Metrics.observeDial(p.cfg.Route, m.Addr, time.Since(start))
	if err == nil {
		pipe.SetNoDelay(conn) // the relay writes whole batches
		if err = writePreamble(conn, m.Backend, req.Client, req.Local, req.First); err != nil {
			conn.Close()
			err = &PreambleError{Err: err}
		}
	}
	if err != nil {
		p.dialFailed(ctx, m, addr, req.Client, err)
		return nil, err
	}
	return conn, nil
}

// dialFailed counts a failed dial by reason and logs it, at most a few lines per backend and
// period (the count has them all). A dial cut short by shutdown is neither.
func (p *Pool) dialFailed(ctx context.Context, m *member, addr string, client netip.AddrPort, err error) {
	if ctx.Err() != nil {
		return
	}
	reason := dialFailureReason(err)
	p.env.Metrics.countFailure(p.cfg.Route, m.Addr, reason)
	log := p.env.Log.Sample(m.logSampler)
	log.Warn().Err(err).Str("route", p.cfg.Route).Str("backend", addr).
		Str("reason", reason).Str("client", client.String()).Msg("backend dial failed")
}
