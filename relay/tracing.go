package relay

import (
	"net/http"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/internal/tracing"
	"github.com/moonbridge/moonbridge/mc"
)

// The relay's hooks into a join's trace (internal/tracing). Each is one call at its place in
// the join and returns at once when the connection has no trace (connInfo.trace nil: tracing
// off or the join not sampled), so that tracing off costs a nil check per step and no
// allocation; none runs per frame.

// traceAccepted records the accept step, from accept to the protocol known.
func traceAccepted(info *connInfo, protocol Protocol, accepted time.Time) {
	if info.trace == nil {
		return
	}
	info.trace.Step(tracing.StepAccept, accepted, nil)
	info.trace.Set(tracing.AttrTransport, string(protocol))
}

// traceTLS records the TLS handshake that started at start and, when it went through, its
// provider and version.
func traceTLS(info *connInfo, start time.Time, err error) {
	if info.trace == nil {
		return
	}
	info.trace.Step(tracing.StepTLS, start, err)
	if err == nil {
		state := info.tls.State()
		info.trace.Set(tracing.AttrTLSProvider, state.Provider)
		info.trace.Set(tracing.AttrTLSVersion, strings.TrimPrefix(state.VersionName(), "TLS "))
	}
}

// traceUpgrade records the WebSocket upgrade, from the end of the step before it, and takes
// the request's traceparent when the tracer trusts parents and the peer is a trusted proxy
// (with the forward secret, when one is set), as forwarded-for headers are believed.
func (ln *listener) traceUpgrade(info *connInfo, r *http.Request) {
	if info.trace == nil {
		return
	}
	info.trace.StepFromLast(tracing.StepUpgrade, nil)
	set := ln.srv.settings()
	if ln.srv.tracer.TrustsParent() && set.TrustedProxies.Contains(info.peer.Addr().Unmap()) && set.ForwardSecret.Admits(r.Header) {
		info.trace.Parent(r.Header)
	}
}

// traceHello names the join by what its hello asks and records the host and protocol.
func (s *session) traceHello(hs mc.Handshake) {
	j := s.info.trace
	if j == nil {
		return
	}
	name, next := tracing.NameJoin, "login"
	switch {
	case hs.NextState == mc.NextStatus:
		name, next = tracing.NameStatus, "status"
	case s.transferIn:
		next = "transfer"
	}
	j.Name(name)
	j.Set(tracing.AttrNextState, next)
	j.Set(tracing.AttrHost, hs.Host)
	j.SetInt(tracing.AttrProtocol, int64(hs.Protocol))
}

// traceStep records step from start to now, failed when the session has an end reason by then
// (the phase that failed has set it).
func (s *session) traceStep(step tracing.Step, start time.Time) {
	if s.info.trace == nil {
		return
	}
	s.info.trace.Step(step, start, s.endReason())
}

// traceRoute records the route step and the route found.
func (s *session) traceRoute(o *opening, start time.Time) {
	if s.info.trace == nil {
		return
	}
	s.traceStep(tracing.StepRoute, start)
	if o.route != nil {
		s.info.trace.Set(tracing.AttrRoute, o.route.Label())
	}
}

// traceDial records the dial step and, when a backend took the first bytes, which one and when.
func (s *session) traceDial(o *opening, start time.Time) {
	if s.info.trace == nil {
		return
	}
	s.traceStep(tracing.StepDial, start)
	if s.line.backend != "" {
		s.info.trace.Set(tracing.AttrBackend, s.line.backend)
		s.info.trace.FirstBytes(len(o.first))
	}
}

// traceSessionServer is what the login tells of its hasJoined request; nil without a trace.
func (s *session) traceSessionServer() func(start time.Time, err error) {
	j := s.info.trace
	if j == nil {
		return nil
	}
	return func(start time.Time, err error) { j.Step(tracing.StepSessionServer, start, err) }
}

// traceRelayed ends the join: the session relays now, and holds no trace while it does (a
// Join is about 1.4 KB).
func (s *session) traceRelayed() {
	if s.info.trace == nil {
		return
	}
	s.traceWho()
	s.info.trace.End("relayed", nil)
	s.info.mu.Lock() // closeTrace may read it on another goroutine (a Close of the server)
	s.info.trace = nil
	s.info.mu.Unlock()
}

// traceEnd ends the join of a session that ended before it relayed (unless traceRelayed has),
// with its outcome as the metrics count it and what answered the player.
func (s *session) traceEnd() {
	if s.info.trace == nil {
		return
	}
	s.traceWho()
	if s.line.answered != "" {
		s.info.trace.Set(tracing.AttrAnswered, s.line.answered)
	}
	reason := s.endReason()
	s.info.trace.End(outcome(reason), reason)
}

// traceWho records who the player is: the address (after a trusted header) and the name.
func (s *session) traceWho() {
	s.info.trace.Set(tracing.AttrClient, s.info.clientAddr().Addr().Unmap().String())
	if s.player.name != "" {
		s.info.trace.Set(tracing.AttrPlayer, s.player.name)
	}
}

// refuseTrace notes why the connection is refused, for its join's end. It may run on the
// handshake timer's goroutine or the memory guard's, hence the lock.
func (i *connInfo) refuseTrace(reason string, err error) {
	i.mu.Lock()
	j := i.trace
	i.mu.Unlock()
	j.Refuse(reason, err)
}

// closeTrace ends the join of a connection that closes before its session ended it: refused
// (the reason report noted) or left.
func (i *connInfo) closeTrace() {
	i.mu.Lock()
	j, client := i.trace, i.client
	i.mu.Unlock()
	if j == nil {
		return
	}
	j.Set(tracing.AttrClient, client.Addr().Unmap().String())
	j.Close()
}
