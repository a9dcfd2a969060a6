package main

import "github.com/moonbridge/moonbridge/cmd/internal/config"

// routeSink serves a discovery source's routes beside the file's, replacing its previous set.
type routeSink interface {
	setDiscovered(source string, routes []config.Route)
}
