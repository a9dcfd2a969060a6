package config

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"
)

// Routes outside the config file: one route as the routes API takes it (ParseRoute) and shows
// it (RouteJSON), the checks a route from elsewhere gets (CheckRouteFrom, routetrust.go), and a file of routes alone, as
// the API keeps its own (ParseRoutes, MarshalRoutes).

// ErrNotARoute wraps what makes a text no route at all: not YAML or JSON, an unknown key, a
// value of the wrong kind.
var ErrNotARoute = errors.New("not a route")

// RouteKey names the route ParseRoute reads in its errors ("route.backends[0]").
const RouteKey = "route"

// ParseRoute decodes one route written as an item of the file's routes (YAML, or JSON, which
// YAML reads too) over the same defaults, and checks its own keys as Validate checks the
// file's but for the files it names (CheckRouteFrom checks those once its source may read them),
// errors naming keys under RouteKey with their lines. ${NAME} placeholders are left as
// they are: the text is not the owner's file, and the process's environment is not its to
// read.
func ParseRoute(raw []byte) (Route, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return Route{}, fmt.Errorf("%w: the text is empty", ErrNotARoute)
	}
	var r Route
	lines, err := decode(raw, RouteKey, &r)
	if err != nil {
		return Route{}, fmt.Errorf("%w: %w", ErrNotARoute, err)
	}
	if err := errors.Join(validateRoute(r, RouteKey)...); err != nil {
		return Route{}, lines.annotate(err)
	}
	return r, nil
}

// RouteJSON is r as a JSON object with the file's keys, as ParseRoute reads it back.
func RouteJSON(r Route) ([]byte, error) {
	text, err := yaml.Marshal(r)
	if err != nil {
		return nil, err
	}
	return yaml.YAMLToJSON(text)
}

// routeList is a file of routes alone: the config file's routes key and nothing else.
type routeList struct {
	Routes []Route `yaml:"routes"`
}

// ParseRoutes reads a file of routes (MarshalRoutes), each route's own keys checked as
// ParseRoute does and their labels different.
func ParseRoutes(raw []byte) ([]Route, error) {
	var list routeList
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	lines, err := decode(raw, "", &list)
	if err != nil {
		return nil, err
	}
	var errs []error
	for i, r := range list.Routes {
		errs = append(errs, validateRoute(r, fmt.Sprintf("routes[%d]", i))...)
	}
	errs = append(errs, validateRouteBackends(list.Routes)...)
	if err := errors.Join(errs...); err != nil {
		return nil, lines.annotate(err)
	}
	return list.Routes, nil
}

// MarshalRoutes writes routes as ParseRoutes reads them, every key spelled out.
func MarshalRoutes(routes []Route) ([]byte, error) {
	if routes == nil {
		routes = []Route{}
	}
	return yaml.MarshalWithOptions(routeList{Routes: routes}, yaml.IndentSequence(true))
}
