package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/replicas"
)

// replicaSettings turns the file's replicas section into the shared state's settings, reading
// the password and CA files, so that serve and check-config refuse the same section.
func replicaSettings(r config.Replicas) (replicas.Settings, error) {
	out := replicas.Settings{Address: r.Address, Username: r.Username, KeyPrefix: r.KeyPrefix, ReplicaID: r.ID,
		Egress: r.LoginEgress, Timeout: r.Timeout, JoinWait: r.JoinWait, Heartbeat: r.Heartbeat}
	if r.PasswordFile != "" {
		raw, err := os.ReadFile(r.PasswordFile)
		if err != nil {
			return out, fmt.Errorf("replicas.password_file: %w", err)
		}
		out.Password = strings.TrimSpace(string(raw))
	}
	if out.ReplicaID == "" {
		host, _ := os.Hostname()
		out.ReplicaID = host + "-" + strconv.Itoa(os.Getpid())
	}
	var err error
	if r.TLS.Enabled {
		out.TLS, err = replicaTLS(r)
	}
	return out, err
}

// replicaTLS is the TLS client configuration Redis is reached with.
func replicaTLS(r config.Replicas) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: r.TLS.ServerName}
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(r.Address)
	}
	if r.TLS.CAFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(r.TLS.CAFile)
	if err != nil {
		return nil, fmt.Errorf("replicas.tls.ca_file: %w", err)
	}
	cfg.RootCAs = x509.NewCertPool()
	if !cfg.RootCAs.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("replicas.tls.ca_file: %s holds no PEM certificate", r.TLS.CAFile)
	}
	return cfg, nil
}

// openReplicas is the shared state of the replicas section, or nil when it is off; serve
// starts it once the relay runs and closes it after the relay.
func openReplicas(r config.Replicas, log zerolog.Logger) (*replicas.Store, error) {
	if !r.Enabled {
		return nil, nil
	}
	settings, err := replicaSettings(r)
	if err != nil {
		return nil, err
	}
	log.Info().Str("address", settings.Address).Str("id", settings.ReplicaID).Bool("tls", settings.TLS != nil).
		Msg("Replicas: sharing players, blocks and rates on Redis")
	return replicas.New(settings, log), nil
}

// sharedOrNil is store as the relay takes it: a nil *Store is no Replicas at all.
func sharedOrNil(store *replicas.Store) relay.Replicas {
	if store == nil {
		return nil
	}
	return store
}

// startReplicas starts store's heartbeat and refreshes over srv's counts; what it returns
// closes store (nothing without one).
func startReplicas(store *replicas.Store, srv *relay.Server) (stop func()) {
	if store == nil {
		return func() {}
	}
	store.Start(srv.RoutePlayers, srv.ShareLoginMeter)
	return func() { store.Close() }
}

// withReplicas adds store's metrics to the admin endpoint's, when there is a store.
func withReplicas(store *replicas.Store, metrics ...prometheus.Collector) []prometheus.Collector {
	if store != nil {
		metrics = append(metrics, store)
	}
	return metrics
}

// apiRouteStore is where the routes API keeps its routes: in the replicas' Redis when both are
// on (admin.routes_api.state_file is not read then), else in the state file.
func apiRouteStore(api config.RoutesAPI, shared *replicas.Store) (stored []config.Route, persist func([]config.Route) error, err error) {
	if shared == nil || !api.Enabled {
		stored, err = routebook.LoadAPIRoutes(api)
		return stored, routebook.StateWriter(api), err
	}
	return nil, routebook.SharedWriter(shared.SaveRoutes), nil
}

// followSharedRoutes serves the routes API's routes another replica saved, once they change.
func followSharedRoutes(api config.RoutesAPI, shared *replicas.Store, book *routebook.Book, log zerolog.Logger) {
	if shared == nil || !api.Enabled {
		return
	}
	shared.FollowRoutes(func(text []byte) {
		if err := book.ApplyShared(text); err != nil {
			log.Error().Err(err).Msg("the routes API's routes from the other replicas are not applied; the running routes stay")
			return
		}
		log.Info().Msg("the routes API's routes from the other replicas applied")
	})
}

// logAPIStart says at start where the routes API keeps its routes: in Redis with the replicas,
// else as routebook.LogAPIStart says.
func logAPIStart(api config.RoutesAPI, shared *replicas.Store, stored int, log zerolog.Logger) {
	if shared == nil || !api.Enabled {
		routebook.LogAPIStart(log, api, stored)
		return
	}
	log.Info().Msg("Routes API on /routes: its routes are kept in Redis and served by every replica (admin.routes_api.state_file is not read)")
}
