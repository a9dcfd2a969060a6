package main

import (
	"errors"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
)

// routeMover moves the players of one route (relay.Server.MoveRoute), for the admin endpoint.
type routeMover interface {
	MoveRoute(route string) (relay.RouteMoves, error)
}

// handleTransfer serves POST /transfer?route=<label>: the route's players that can be moved
// are sent a Transfer to shutdown.transfer_to, as on a drain; it answers
// {"route":..,"transferring":N,"staying":M}, 409 without a transfer target, 404 for a route
// that does not exist, 400 without a route. adminGuard checks the request first.
func handleTransfer(mux *http.ServeMux, src routeMover, log zerolog.Logger) {
	move := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := r.URL.Query().Get("route")
		if route == "" {
			http.Error(w, "name the route: POST /transfer?route=<label>", http.StatusBadRequest)
			return
		}
		moves, err := src.MoveRoute(route)
		var unknown *relay.UnknownRouteError
		switch {
		case errors.As(err, &unknown):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		log.Info().Str("route", route).Int("transferring", moves.Transferring).Int("staying", moves.Staying).
			Str("from", r.RemoteAddr).Msg("players of a route asked to move by the admin endpoint")
		writeJSON(w, moves)
	})
	mux.Handle("POST /transfer", move)
}
