package routebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// The routes API (admin.routes_api), on the admin endpoint, over the route book:
//
//	GET    /routes         200 {"routes":[ROUTE, ...]}, every route, in the book's merge order
//	GET    /routes/NAME    200 ROUTE
//	POST   /routes         201 ROUTE; the body is one route as in the config file (JSON or YAML)
//	PUT    /routes/NAME    200 ROUTE; the same body, for an API route; no name in it: NAME
//	DELETE /routes/NAME    204, an API route
//
// where ROUTE is {"name":..,"origin":"file"|"api"|SOURCE,"served":bool,"reason":..,"route":{..}},
// reason saying why a route is left out, and route the route with the file's keys, every
// default filled in. NAME is a route's label and may hold slashes (docker/survival). Every
// request carries "Authorization: Bearer TOKEN" (token_file). An error is {"error":"..."}: 400
// a body that is no route, 401 no or a wrong token, 404 no such route, 409 a clash with another
// route or a route of the file or a source (read-only here), 413 a body over maxRouteBody, 422
// a route that fails the file's checks, 500 a change not applied or not saved, 503 an
// unreadable token file.

// maxRouteBody bounds a request's body: a route with every key is about 1 KiB.
const maxRouteBody = 64 << 10

// API serves the routes API: the book, the token file, and its log and counter.
type API struct {
	book      *Book
	tokenFile string
	log       zerolog.Logger
	requests  *prometheus.CounterVec // moonbridge_routes_api_requests_total{verb,result}
}

// The API's verbs, for the counter and the log.
var apiVerbs = []string{"list", "get", "add", "change", "remove"}

// apiResults are the counter's results, by status: ok (2xx), invalid (400, 413, 422),
// unauthorized (401), not_found (404), conflict (409), failed (5xx).
var apiResults = []string{"ok", "invalid", "unauthorized", "not_found", "conflict", "failed"}

func newRoutesAPICounter() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "moonbridge_routes_api_requests_total",
		Help: "Routes API requests by verb (list, get, add, change, remove) and result: ok, invalid, unauthorized, not_found, conflict, failed.",
	}, []string{"verb", "result"})
	for _, verb := range apiVerbs {
		for _, result := range apiResults {
			c.WithLabelValues(verb, result)
		}
	}
	return c
}

// NewAPI is the routes API over book, its bearer token read from tokenFile at each request.
func NewAPI(book *Book, tokenFile string, log zerolog.Logger) *API {
	return &API{book: book, tokenFile: tokenFile, log: log, requests: newRoutesAPICounter()}
}

// Requests is moonbridge_routes_api_requests_total, for the admin endpoint's registry.
func (a *API) Requests() prometheus.Collector { return a.requests }

// Handle serves the API on mux.
func (a *API) Handle(mux *http.ServeMux) {
	a.handle(mux, "GET /routes", "list", a.listRoutes)
	a.handle(mux, "GET /routes/{name...}", "get", a.getRoute)
	a.handle(mux, "POST /routes", "add", a.addRoute)
	a.handle(mux, "PUT /routes/{name...}", "change", a.changeRoute)
	a.handle(mux, "DELETE /routes/{name...}", "remove", a.removeRoute)
}

// LogAPIStart says at start where the API's routes are kept, and so whether a restart keeps
// them; stored is how many the state file gave.
func LogAPIStart(log zerolog.Logger, cfg config.RoutesAPI, stored int) {
	switch {
	case !cfg.Enabled:
	case cfg.StateFile == "":
		log.Warn().Msg("Routes API on /routes without admin.routes_api.state_file: its routes last until the process ends (a SIGHUP keeps them)")
	default:
		log.Info().Str("state_file", cfg.StateFile).Int("routes", stored).
			Msg("Routes API on /routes: its routes are read from state_file at start and written there after each change")
	}
}

// apiAnswer is a verb's answer: its status and a JSON body (nil for none), and for the log the
// route a POST named in its body (the others name theirs in the path).
type apiAnswer struct {
	status int
	body   any
	route  string
}

// apiError is a refused request with its status.
type apiError struct {
	status int
	err    error
}

func (e *apiError) Error() string { return e.err.Error() }

// handle serves one verb: the token checked and the body bounded first, the answer or error
// written as JSON, counted, and logged for a change or a refusal.
func (a *API) handle(mux *http.ServeMux, pattern, verb string, do func(*http.Request) (apiAnswer, error)) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxRouteBody)
		err := a.authorize(r)
		var answer apiAnswer
		if err == nil {
			answer, err = do(r)
		}
		if err != nil {
			answer.status, answer.body = errorStatus(err), map[string]string{"error": err.Error()}
		}
		if answer.route == "" {
			answer.route = r.PathValue("name")
		}
		a.requests.WithLabelValues(verb, resultOf(answer.status)).Inc()
		a.logRequest(verb, r, answer, err)
		if answer.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="moonbridge routes API"`)
		}
		writeJSONStatus(w, answer.status, answer.body)
	})
}

// authorize checks the request's bearer token against the token file's, read now so that a
// replaced file takes effect at once; the comparison takes as long whatever the tokens.
func (a *API) authorize(r *http.Request) error {
	want, err := config.ReadAPIToken(a.tokenFile)
	if err != nil {
		a.log.Error().Err(err).Msg("routes API: the token file cannot be read; every request is refused")
		return &apiError{http.StatusServiceUnavailable, errors.New("the API's token file cannot be read (the log says why)")}
	}
	if !config.CarriesToken(r, want) {
		return &apiError{http.StatusUnauthorized, errors.New("this needs the admin token (admin.token_file): Authorization: Bearer TOKEN")}
	}
	return nil
}

// errorStatus is the HTTP status of a verb's error.
func errorStatus(err error) int {
	var api *apiError
	var refused *refusedChange
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &api):
		return api.status
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, config.ErrNotARoute):
		return http.StatusBadRequest
	case errors.As(err, &refused):
		return map[refusal]int{refusedInvalid: http.StatusUnprocessableEntity, refusedConflict: http.StatusConflict,
			refusedNotFound: http.StatusNotFound}[refused.why]
	}
	return http.StatusInternalServerError
}

// resultOf is the counter's result for a status.
func resultOf(status int) string {
	switch {
	case status < 300:
		return "ok"
	case status == http.StatusUnauthorized:
		return "unauthorized"
	case status == http.StatusNotFound:
		return "not_found"
	case status == http.StatusConflict:
		return "conflict"
	case status < 500:
		return "invalid"
	}
	return "failed"
}

// logRequest writes a line for each change made and each request refused: the verb, the route
// named, the status, and who asked (the client's address).
func (a *API) logRequest(verb string, r *http.Request, answer apiAnswer, err error) {
	if err == nil && (verb == "list" || verb == "get") {
		return
	}
	ev := a.log.Info()
	if err != nil {
		ev = a.log.Warn().Err(err)
	}
	ev.Str("verb", verb).Str("route", answer.route).Int("status", answer.status).Str("from", r.RemoteAddr).Msg("routes API: " + verb)
}

// routeView is how the API shows a route of the book.
type routeView struct {
	Name   string          `json:"name"`
	Origin string          `json:"origin"`
	Served bool            `json:"served"`
	Reason string          `json:"reason,omitempty"` // why it is left out
	Route  json.RawMessage `json:"route"`
}

func viewOf(e Entry) (routeView, error) {
	text, err := config.RouteJSON(e.Route)
	if err != nil {
		return routeView{}, err
	}
	return routeView{Name: e.Route.Label(), Origin: e.Origin, Served: e.LeftOut == "", Reason: e.LeftOut, Route: text}, nil
}

func (a *API) listRoutes(*http.Request) (apiAnswer, error) {
	views := []routeView{}
	for _, e := range a.book.List() {
		v, err := viewOf(e)
		if err != nil {
			return apiAnswer{}, err
		}
		views = append(views, v)
	}
	return apiAnswer{status: http.StatusOK, body: map[string][]routeView{"routes": views}}, nil
}

func (a *API) getRoute(r *http.Request) (apiAnswer, error) {
	return a.view(http.StatusOK, r.PathValue("name"))
}

func (a *API) addRoute(r *http.Request) (apiAnswer, error) {
	route, err := readRoute(r)
	if err != nil {
		return apiAnswer{}, err
	}
	if err := a.book.Add(route); err != nil {
		return apiAnswer{route: route.Label()}, err
	}
	answer, err := a.view(http.StatusCreated, route.Label())
	answer.route = route.Label()
	return answer, err
}

func (a *API) changeRoute(r *http.Request) (apiAnswer, error) {
	name := r.PathValue("name")
	route, err := readRoute(r)
	if err != nil {
		return apiAnswer{}, err
	}
	if route.Name == "" && route.Label() != name {
		route.Name = name
	}
	if err := a.book.Change(name, route); err != nil {
		return apiAnswer{}, err
	}
	return a.view(http.StatusOK, name)
}

func (a *API) removeRoute(r *http.Request) (apiAnswer, error) {
	if err := a.book.Remove(r.PathValue("name")); err != nil {
		return apiAnswer{}, err
	}
	return apiAnswer{status: http.StatusNoContent}, nil
}

// view answers with the book's route named name.
func (a *API) view(status int, name string) (apiAnswer, error) {
	e, ok := a.book.Find(name)
	if !ok {
		return apiAnswer{}, &apiError{http.StatusNotFound, fmt.Errorf("no route is named %q", name)}
	}
	v, err := viewOf(e)
	if err != nil {
		return apiAnswer{}, err
	}
	return apiAnswer{status: status, body: v}, nil
}

// readRoute reads the request's route: refused when the body is too big (413), no route (400)
// or a route that fails the file's checks of its own keys (422).
func readRoute(r *http.Request) (config.Route, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return config.Route{}, err
	}
	route, err := config.ParseRoute(body)
	if err != nil && !errors.Is(err, config.ErrNotARoute) {
		return config.Route{}, &refusedChange{refusedInvalid, err}
	}
	return route, err
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	if v == nil {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
