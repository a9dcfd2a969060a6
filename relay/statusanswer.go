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
	return r.StatusCache > 0 || r.LastKnown != nil || r.MaxPlayers > 0
}

// answerStatus answers a status ping for route from a recent live answer, a fresh one, the last
// known one marked offline, or the fixed fallback, in that order of preference.
func (s *session) answerStatus(r *bufio.Reader, hello mc.Hello, route *Route, capture string) {
	hs := hello.Handshake
	key := statusKey{capture: capture, protocol: hs.Protocol}
	body, shared, err := route.status.get(key, route.StatusCache, func() ([]byte, error) {
		return s.liveStatus(route, hs, capture)
	})
	switch {
	case err == nil && shared:
		s.line.answered = "status cache"
	case err == nil:
		s.line.answered = "live status"
	default:
		body = s.lastKnown(route, key)
		if body == nil {
			s.line.answered = "fallback"
			s.answer(r, hello, route.pool.WakeAnswer(s.fallback(), err), err)
			return
		}
		s.line.answered = "last known status"
	}
	s.serveStatus(r, body, route, err)
}

// serveStatus answers the status request with body (with route's player line when it has
// max_players), and the ping, and ends the session with cause (nil, or why a live answer was
// not had).
func (s *session) serveStatus(r *bufio.Reader, body []byte, route *Route, cause error) {
	if route.MaxPlayers > 0 {
		body = s.playerLine(body, route)
	}
	if err := mc.ServeStatusJSON(r, body, s.sendAnswer); err != nil && !errors.Is(err, io.EOF) {
		cause = errors.Join(cause, err)
	}
	s.abort(cause)
}

// playerLine is body with route's player line (withPlayers), or body when it is not a JSON
// object (ParseStatusResponse checked that it is: this does not happen).
func (s *session) playerLine(body []byte, route *Route) []byte {
	if lined, err := withPlayers(body, route.MaxPlayers, s.srv.counter.routePlayers(route)); err == nil {
		return lined
	}
	return body
}

// lastKnown is route's last live answer for key marked offline, or nil.
func (s *session) lastKnown(route *Route, key statusKey) []byte {
	if route.LastKnown == nil {
		return nil
	}
	body, ok := route.status.last(key)
	if !ok {
		return nil
	}
	marked, err := route.LastKnown.markOffline(body)
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
