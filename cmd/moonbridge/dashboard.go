package main

import (
	"context"
	"net/http"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/dashboard"
)

// dashboardSampling is how the dashboard's graphs sample the relay; tests shorten it.
var dashboardSampling = dashboard.DefaultSampling()

// handleDashboard serves the dashboard (cmd/internal/dashboard) on mux and keeps its graphs'
// history until stop is called.
func handleDashboard(mux *http.ServeMux, src dashboard.Source, cfg config.Admin) (stop func()) {
	d := dashboard.New(src, dashboardSampling, cfg.TokenPath() != "")
	d.Handle(mux)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	return func() { cancel(); <-done }
}
