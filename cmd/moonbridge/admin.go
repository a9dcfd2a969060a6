package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/dashboard"
	"github.com/moonbridge/moonbridge/cmd/internal/maintenance"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
)

// adminSource is what the admin endpoint asks the relay.
type adminSource interface {
	healthSource
	blockListSource
	routeMover
	dashboard.Source
	sessionSource
}

// startAdmin serves Prometheus metrics on /metrics, the health answers (health.go), the block
// list (blocklist.go), transfers (transferadmin.go), the bans (bansapi.go, over store), the
// sessions (sessionsapi.go), maintenance (maintenanceadmin.go, over maint) and the dashboard
// (dashboard.go), when cfg.Listen is set: the relay's series (sessions, bytes, refusals; see
// relay/metrics.go) and serve's own beside the Go runtime's and the process's, from a registry
// of this run's own; Go's profiles under /debug/pprof/ when cfg.Pprof is; and the routes API over
// book (routebook.API) when cfg.RoutesAPI is on. Every path is behind adminGuard (hosts,
// cross-origin requests, the token) and the bounds of adminconn.go (connections, timeouts,
// header size). Its socket comes from sock (one an upgrade handed over, or bound now).
func startAdmin(cfg config.Admin, src adminSource, book *routebook.Book, store *banStore, maint *maintenance.Book, sock *sockets, log zerolog.Logger, metrics ...prometheus.Collector) (stop func(), err error) {
	if cfg.Listen == "" {
		return func() {}, nil
	}
	cfg = cfg.WithBounds()
	reg := prometheus.NewRegistry()
	var api *routebook.API
	if cfg.RoutesAPI.Enabled {
		api = routebook.NewAPI(book, cfg.TokenPath(), log)
		metrics = append(metrics, api.Requests())
	}
	for _, m := range metrics {
		if err := reg.Register(m); err != nil {
			return nil, err
		}
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ln, err := sock.listen(adminSocket(cfg.Listen), cfg.Listen)
	if err != nil {
		return nil, err
	}
	ln = newLimitListener(ln, cfg.MaxConnections)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: promLogger{log}}))
	handleHealth(mux, src)
	handleBlockList(mux, src, log)
	handleTransfer(mux, src, log)
	audit := adminAudit{log: log, token: cfg.TokenPath() != ""}
	handleBans(mux, store, src, audit)
	handleSessions(mux, src, store, audit)
	handleMaintenance(mux, maint)
	stopDashboard := handleDashboard(mux, src, cfg)
	paths := "/metrics, /livez, /readyz, /healthz, /blocklist, /transfer, /bans, /sessions, /maintenance, /dashboard"
	if cfg.Pprof {
		handlePprof(mux)
		paths += ", /debug/pprof/"
	}
	if api != nil {
		api.Handle(mux)
		paths += ", /routes"
	}
	server := newAdminServer(cfg, newAdminGuard(cfg, log).wrap(mux))
	go func() {
		if err := server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error().Err(err).Msg("admin endpoint stopped")
		}
	}()
	log.Info().Str("addr", ln.Addr().String()).Bool("token", cfg.TokenPath() != "").Int("max_connections", cfg.MaxConnections).
		Msg("Admin endpoint: " + paths)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		server.Shutdown(ctx)
		stopDashboard()
	}, nil
}

// promLogger passes the metrics handler's errors (a failed collection) to the log.
type promLogger struct{ log zerolog.Logger }

func (l promLogger) Println(v ...any) { l.log.Error().Msg(fmt.Sprint(v...)) }

// handlePprof serves net/http/pprof's handlers on mux (not on http.DefaultServeMux, which the
// package's init fills but nothing here serves).
func handlePprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}
