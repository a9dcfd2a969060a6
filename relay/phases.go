package relay

import (
	"bufio"
	"net"

	"github.com/moonbridge/moonbridge/internal/tracing"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
)

// opening is what a session's phases hand on, from the hello to the dial (session.run).
type opening struct {
	r        *bufio.Reader // the player's bytes so far; an answer reads the rest of its request from it
	hello    mc.Hello
	hs       mc.Handshake // hello's, when it is not a legacy ping
	route    *Route
	capture  string // what the route's wildcard matched, for backends that name it
	ranLogin bool   // the proxy ran the login itself (the route's auth)
	first    []byte // what the backend got first
}

// readHello reads the Minecraft hello within the handshake clock and answers, itself, any
// hello while memory is short and a status ping while the server drains. A legacy ping goes on
// as the status handshake it stands for (legacyHandshake), answered in its own form.
func (s *session) readHello(o *opening) bool {
	s.down.SetReadDeadline(s.info.deadline) // counted from accept, not from the upgrade
	var err error
	if o.hello, err = mc.ReadHello(o.r, s.conf.limits.MaxHandshakeFrame); err != nil {
		s.refuseMalformed(o.r, err) // before the close, so a next connection finds its strike
		s.abort(&mc.HelloError{Err: err})
		return false
	}
	if err := s.srv.counter.meterHello(s.info.clientAddr().Addr(), o.hello); err != nil {
		s.refuseOverLimit(o, err)
		return false
	}
	if s.refuseWhenFull(o.r, o.hello) {
		return false
	}
	if o.hello.Legacy != nil {
		o.hello.Handshake = legacyHandshake(*o.hello.Legacy)
	}
	o.hs = o.hello.Handshake
	s.line.hello(o.hs)
	if o.hs.NextState == mc.NextTransfer {
		o.hs = s.transferLogin(o.hs)
	}
	s.traceHello(o.hs)
	s.player.want, s.player.protocol = o.hs.NextState == mc.NextLogin, o.hs.Protocol
	if o.hs.NextState == mc.NextStatus && s.srv.draining.Load() {
		s.abort(s.fallback().Serve(o.r, o.hello, s.sendAnswer))
		s.line.answered = "restarting"
		return false
	}
	return true
}

// matchRoute finds the route of the hello's host and the request path, checks its access rules
// and takes the part of the host its wildcard matched; the fallback answers otherwise.
func (s *session) matchRoute(o *opening) bool {
	defer s.traceRoute(o, s.info.trace.Now())
	route, ok := s.conf.router.Match(o.hs.Host, s.path)
	if !ok {
		s.line.answered = "fallback"
		s.answer(o.r, o.hello, s.fallback(), &NoRouteError{Host: o.hs.Host, Path: s.path})
		return false
	}
	if err := s.routeAccess(route, o.hs.Host); err != nil {
		s.srv.countDenied(err.Reason)
		s.line.answered = "access denied"
		s.answer(o.r, o.hello, accessAnswer(s.fallback()), err)
		return false
	}
	if s.refuseCountry(o, route) {
		return false
	}
	capture, err := route.pool.Capture(o.hs.Host)
	if err != nil {
		s.line.answered = "fallback"
		s.answer(o.r, o.hello, s.fallback(), err)
		return false
	}
	o.route, o.capture = route, capture
	label := route.Label()
	s.routeLabel.Store(&label)
	return true
}

// admit counts the session against its route's limit until it ends, or refuses it.
func (s *session) admit(o *opening) bool {
	release, err := s.srv.counter.acquireRoute(o.route)
	if err != nil {
		s.refuseOverLimit(o, err)
		return false
	}
	if release != nil {
		s.end.Add(func(error) { release() })
	}
	return true
}

// logIn runs the player's login when the route has the proxy do it (its auth); a status ping
// and a passed-through login go on untouched.
func (s *session) logIn(o *opening) bool {
	o.ranLogin = o.route.Login != nil && o.hs.NextState != mc.NextStatus
	if !o.ranLogin {
		return true
	}
	defer s.traceStep(tracing.StepLogin, s.info.trace.Now())
	if err := s.runLogin(o.r, o.hs, o.route.Login); err != nil {
		s.abort(err)
		return false
	}
	return true
}

// dial sends the first bytes to a backend of the route's pool (waking its server for a login
// when it sleeps) and counts the session there; the fallback answers when none takes them. A
// status ping the route answers itself is answered here, from answers it asks backends for, and
// in attack mode every status ping, from the answers the route has.
func (s *session) dial(o *opening) (net.Conn, bool) {
	if o.hs.NextState == mc.NextStatus && s.srv.underAttack() {
		s.statusFromCache(o.r, o.hello, o.route, o.capture)
		return nil, false
	}
	if o.hs.NextState == mc.NextStatus && (o.route.answersStatus() || o.hello.Legacy != nil) {
		s.answerStatus(o.r, o.hello, o.route, o.capture)
		return nil, false
	}
	defer s.traceDial(o, s.info.trace.Now())
	var buffered int
	o.first, buffered = s.firstBytes(o.r, o.hs, o.route)
	req := s.dialRequest(o.capture, o.first)
	backend, chosen, err := o.route.pool.Dial(s.srv.ctx, req)
	if err != nil && o.route.pool.Wakes() {
		backend, chosen, err = s.wakeDial(o.route, req, o.hs.NextState == mc.NextLogin, err)
	}
	if err != nil {
		s.line.answered = "fallback"
		s.answer(o.r, o.hello, o.route.pool.WakeAnswer(s.fallback(), err), err)
		return nil, false
	}
	o.r.Discard(buffered) // r is empty now: what the player sent next is in s.down
	untrack := chosen.Track()
	s.end.Add(func(error) { untrack() })
	s.line.backend = chosen.Addr
	return backend, true
}

// handOver gives the backend the player the proxy verified (Velocity forwarding) and counts a
// login the backend took, before the relay.
func (s *session) handOver(o *opening, backend net.Conn) bool {
	if s.joining(o.hs) {
		// With or without Transfer: following the stream costs 1.047x the CPU per echo of not
		// following it (bench/results/2026-12-01-transfer.md, D3), and lets a drain tell the
		// players it closes why.
		s.mover = newMover(o.hs.Protocol, o.hs.Host)
	}
	if o.ranLogin && o.route.Login.Forwarding == auth.ForwardVelocity {
		if err := s.forwardVelocity(backend, o.route); err != nil {
			backend.Close()
			s.abort(err)
			return false
		}
	}
	if o.hs.NextState == mc.NextLogin {
		s.loginRelayed(o.route)
	}
	return true
}
