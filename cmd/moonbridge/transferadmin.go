package main

import (
	"errors"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
)

// routeMover moves the players of one route (relay.Server.MoveRoute), for the admin endpoint.
type routeMover interface {
	MoveRoute(route, host string, port uint16) (relay.RouteMoves, error)
}

// errNoMoveTarget: POST /transfer without to. The move needs another instance's address: the
// drain's transfer_to is the load balancer's name, which reaches this instance too while it
// serves, and a player sent there could come straight back to the same route.
var errNoMoveTarget = errors.New("say where: POST /transfer?route=<label>&to=<host:port>, the address of " +
	"another instance (players sent to this one, or to a load balancer in front of it, come back to the same route)")

// handleTransfer serves POST /transfer?route=<label>&to=<host:port>: the route's raw TCP
// players of 1.20.5 or later are sent a Transfer to to, another instance, as on a drain (the
// cookie names the host each joined at, so that they land on the same route there); it
// answers {"route":..,"to":..,"transferring":N,"staying":M,"note":..}: 400 without a route or
// a to that is an address, 404 for a route that does not exist, 409 for a to that reaches this
// instance's own listener. adminGuard checks the request first.
func handleTransfer(mux *http.ServeMux, src routeMover, log zerolog.Logger) {
	move := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route, to := r.URL.Query().Get("route"), r.URL.Query().Get("to")
		if route == "" {
			http.Error(w, "name the route: POST /transfer?route=<label>&to=<host:port>", http.StatusBadRequest)
			return
		}
		moves, err := moveRoute(src, route, to)
		var unknown *relay.UnknownRouteError
		var own *relay.OwnListenerError
		switch {
		case errors.As(err, &unknown):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case errors.As(err, &own):
			http.Error(w, err.Error(), http.StatusConflict)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		log.Info().Str("route", route).Str("to", moves.To).Int("transferring", moves.Transferring).Int("staying", moves.Staying).
			Str("from", r.RemoteAddr).Msg("players of a route asked to move by the admin endpoint")
		writeJSON(w, moves)
	})
	mux.Handle("POST /transfer", move)
}

// moveRoute reads to, host:port, and moves route's players there.
func moveRoute(src routeMover, route, to string) (relay.RouteMoves, error) {
	if to == "" {
		return relay.RouteMoves{}, errNoMoveTarget
	}
	host, port, err := relay.ParseTransferTarget(to)
	if err != nil {
		return relay.RouteMoves{}, err
	}
	return src.MoveRoute(route, host, port)
}
