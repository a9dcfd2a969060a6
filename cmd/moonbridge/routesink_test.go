package main

import "github.com/moonbridge/moonbridge/cmd/internal/config"

// fakeSink passes on what source hands it.
type fakeSink struct {
	source string
	got    chan []config.Route
}

func (s fakeSink) SetDiscovered(source string, routes []config.Route) {
	if source == s.source {
		s.got <- routes
	}
}
