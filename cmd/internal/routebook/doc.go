// Package routebook is the route control plane: the book of routes by origin (the config
// file's, the routes API's, each discovery source's), their merge onto the running relay with
// one rule for who serves a host (clash.go, on relay.Takes), what a route from elsewhere than
// the file may name (config.CheckRouteFrom), the routes API over the book (api.go) and its state
// file (state.go), and the one place a relay.Route is made from a config.Route
// (relayroutes.go). cmd/moonbridge wires it: it makes the book, hands it the relay, the file at
// each SIGHUP and the sources' routes, and serves the API on the admin endpoint.
package routebook
