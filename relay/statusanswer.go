package relay

import (
	"bufio"
	"errors"
	"io"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// answersStatus says whether the relay answers this route's server-list pings itself, from
// answers it asks the backend for (and keeps), rather than passing the ping through.
func (r *Route) answersStatus() bool {
	return r.StatusCache > 0 || r.LastKnown != nil || r.MaxPlayers > 0 || r.Status.set()
}

// A legacy ping (pre-1.7 clients, some monitors) is answered like a status ping on a route
// that answers them itself: a backend is asked with a modern status ping for the handshake
// legacyHandshake makes of it, and the answer kept in the route's status cache, so that the
// kick carries the server's MOTD, players and version. Such answers are shared for at least
// legacyStatusTTL, also on a route that passes status pings through, so a flood of legacy
// pings asks a backend once a second at most.
const (
	legacyStatusTTL = time.Second
	// legacyProtocol is the protocol the status question says: -1, by convention a client
	// that pings to find out which version to speak.
	legacyProtocol = -1
	// legacyKickProtocol is what the kick says the server speaks, as vanilla servers answer
	// legacy pings: no pre-1.7 client's, so each shows the version name.
	legacyKickProtocol = 127
)

// legacyHandshake is the status handshake a legacy ping stands for, to route it and to ask a
// backend: its host and port from 1.6 on, before that no host (a "*" route takes it).
func legacyHandshake(p mc.LegacyPing) mc.Handshake {
	hs := mc.Handshake{Protocol: legacyProtocol, Host: p.Host, Port: p.Port, NextState: mc.NextStatus}
	if hs.Port == 0 {
		hs.Port = 25565
	}
	hs.Raw = hs.AppendFrame(nil, hs.Host)
	return hs
}

// answerStatus answers a status ping (or a legacy ping) for route from a recent live answer, a
// fresh one, the last known one marked offline, or the fixed fallback, in that order of
// preference.
func (s *session) answerStatus(r *bufio.Reader, hello mc.Hello, route *Route, capture string) {
	hs := hello.Handshake
	key := statusKey{capture: capture, protocol: hs.Protocol}
	ttl := route.StatusCache
	if hello.Legacy != nil {
		ttl = max(ttl, legacyStatusTTL)
	}
	body, shared, err := route.status.get(key, ttl, func() ([]byte, error) {
		return s.liveStatus(route, hs, capture)
	})
	switch {
	case err == nil:
		s.line.answered = statusSource(shared)
		body = route.Status.apply(body)
	default:
		body = s.lastKnown(route, key)
		if body == nil {
			s.line.answered = "fallback"
			s.answer(r, hello, route.pool.WakeAnswer(s.fallback(), err), err)
			return
		}
		s.line.answered = "last known status"
	}
	s.serveStatus(r, hello, body, route, err)
}

// statusSource says, for the session line, where a live answer came from: shared (the cache
// or another ping's question) or asked for this ping.
func statusSource(shared bool) string {
	if shared {
		return "status cache"
	}
	return "live status"
}

// serveStatus answers hello with body (with route's player line, playerNumbers) and ends the
// session with cause (nil, or why a live answer was not had).
func (s *session) serveStatus(r *bufio.Reader, hello mc.Hello, body []byte, route *Route, cause error) {
	body = s.playerLine(body, route)
	if err := s.serveStatusBody(r, hello, body); err != nil && !errors.Is(err, io.EOF) {
		cause = errors.Join(cause, err)
	}
	s.abort(cause)
}

// playerLine is body with route's player line (withPlayers), or body when the route keeps the
// server's or body is not a JSON object (ParseStatusResponse checked that it is).
func (s *session) playerLine(body []byte, route *Route) []byte {
	maxPlayers, online := route.playerNumbers(func() int { return s.srv.networkPlayers(route) })
	if maxPlayers < 0 && online < 0 {
		return body
	}
	if lined, err := withPlayers(body, maxPlayers, online); err == nil {
		return lined
	}
	return body
}

// serveStatusBody answers hello with a server's status JSON: as a status exchange, or for a
// legacy ping as its kick.
func (s *session) serveStatusBody(r *bufio.Reader, hello mc.Hello, body []byte) error {
	if hello.Legacy == nil {
		return mc.ServeStatusJSON(r, body, s.sendAnswer)
	}
	s.line.answered += " (legacy ping)"
	status := mc.Status{Protocol: legacyKickProtocol}
	if sum := summarize(body); sum != nil {
		status.VersionName, status.MOTD = sum.Version, sum.MOTD
		status.OnlinePlayers, status.MaxPlayers = sum.Online, sum.Max
	}
	return s.sendAnswer(mc.AppendLegacyKick(nil, hello.Legacy.Form, status))
}

// lastKnown is route's last live answer for key, with the route's status fields, marked
// offline; nil when there is none.
func (s *session) lastKnown(route *Route, key statusKey) []byte {
	if route.LastKnown == nil {
		return nil
	}
	body, ok := route.status.last(key)
	if !ok {
		return nil
	}
	marked, err := route.LastKnown.markOffline(route.Status.apply(body))
	if err != nil {
		return nil // ParseStatusResponse checked it is a JSON object; this cannot happen
	}
	return marked
}

// liveStatus asks a backend of route for its status answer, with the player's handshake (its
// host rewritten as the route says), within the dial timeout, and checks it is one.
func (s *session) liveStatus(route *Route, hs mc.Handshake, capture string) ([]byte, error) {
	first := mc.AppendStatusRequest(s.handshakeFor(route, hs))
	req := s.dialRequest(capture, first)
	conn, _, err := route.pool.Dial(s.srv.ctx, req)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(req.Timeout))
	_, body, err := mc.NewFrameReader(conn, 4096).ReadFrame()
	if err != nil {
		return nil, &StatusError{Err: err}
	}
	json, err := mc.ParseStatusResponse(body)
	if err != nil {
		return nil, &StatusError{Err: err}
	}
	return json, nil
}

// StatusError is a backend that took a status ping but gave no status answer.
type StatusError struct{ Err error }

func (e *StatusError) Error() string { return "backend status answer: " + e.Err.Error() }
func (e *StatusError) Unwrap() error { return e.Err }
