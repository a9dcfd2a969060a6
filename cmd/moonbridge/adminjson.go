package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// The admin API's actions (bans, sessions) read one JSON object and answer JSON, errors as
// {"error": "..."}.

// maxAdminBody bounds an action's request body.
const maxAdminBody = 16 << 10

// BodyError is a request body that is no one JSON object of the keys the action takes.
type BodyError struct{ Err error }

func (e *BodyError) Error() string { return "request body: " + e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// decodeBody reads r's body into v: one JSON object of at most maxAdminBody bytes, no key v
// does not have.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAdminBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &BodyError{Err: err}
	}
	if dec.Decode(&struct{}{}) != io.EOF {
		return &BodyError{Err: errors.New("more than one JSON value")}
	}
	return nil
}

// replyError answers err with its status: 400 bad input, 413 a body over maxAdminBody, 404 no
// such session or ban, 409 what cannot be done now, 500 the rest.
func replyError(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(errorStatus(err))
	json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

func errorStatus(err error) int {
	switch {
	case errors.As(err, new(*http.MaxBytesError)):
		return http.StatusRequestEntityTooLarge
	case errors.As(err, new(*bans.InputError)), errors.As(err, new(*BodyError)):
		return http.StatusBadRequest
	case errors.As(err, new(*relay.UnknownSessionError)), errors.Is(err, errNoSuchBan):
		return http.StatusNotFound
	case errors.As(err, new(*relay.NotMovableError)), errors.Is(err, bans.ErrFull), errors.Is(err, ErrBansFileChanged):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// errNoSuchBan: DELETE /bans named a ban that is not in force.
var errNoSuchBan = errors.New("no ban in force has this kind and value")

// adminAudit writes the one line of an admin action: who asked (the request's remote address,
// and whether the admin token was required, which the guard let it through only with) and what
// happened.
type adminAudit struct {
	log   zerolog.Logger
	token bool // admin.token_file is set
}

// line starts the action's line: info when it was done, warn with the error when refused.
func (a adminAudit) line(r *http.Request, action string, err error) *zerolog.Event {
	ev := a.log.Info()
	if err != nil {
		ev = a.log.Warn().Err(err)
	}
	return ev.Str("action", action).Str("from", r.RemoteAddr).Bool("token", a.token).Str("path", shortValue(r.URL.Path))
}
