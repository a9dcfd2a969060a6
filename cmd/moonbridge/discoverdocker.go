package main

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover"
	"github.com/moonbridge/moonbridge/discover/docker"
)

// dockerSource names the Docker source's routes to the sink.
const dockerSource = "docker"

// startDockerDiscovery follows discovery.docker's engine, when it is enabled, and hands sink
// its routes until stop, which waits for the source to end. An engine that cannot be reached
// does not stop the proxy: the source logs it and tries again.
func startDockerDiscovery(d config.DiscoveryDocker, sink routeSink, log zerolog.Logger) (stop func()) {
	if !d.Enabled {
		return func() {}
	}
	log = log.With().Str("source", dockerSource).Logger()
	client := docker.NewClient(d.Endpoint)
	src := docker.Source{Client: client, Prefix: d.LabelPrefix, Resync: d.Resync, Log: log}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := src.Run(ctx, func(routes []discover.Route) { sink.setDiscovered(dockerSource, configRoutes(routes)) })
		if err != nil {
			log.Error().Err(err).Msg("docker: discovery stopped")
		}
	}()
	log.Info().Str("endpoint", d.Endpoint.String()).Str("label_prefix", d.LabelPrefix).Msg("docker: following the engine's labelled containers")
	return func() {
		cancel()
		<-done
		client.Close()
	}
}

// configRoutes writes a source's routes as the file's: every key they do not set at its
// default, a wake through the container's engine.
func configRoutes(found []discover.Route) []config.Route {
	out := make([]config.Route, len(found))
	for i, r := range found {
		route := config.DefaultRoute(r.Backends...)
		route.Name, route.Hosts = r.Name, r.Hosts
		if r.Wake != nil {
			route.Wake.Container, route.Wake.StopAfterIdle = r.Wake.Container, r.Wake.StopAfterIdle
		}
		out[i] = route
	}
	return out
}
