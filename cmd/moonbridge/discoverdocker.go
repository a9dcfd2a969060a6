package main

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
	"github.com/moonbridge/moonbridge/discover/docker"
	"github.com/moonbridge/moonbridge/routes"
)

// dockerSource names the Docker source's routes to the sink.
const dockerSource = config.OriginDocker

// startDockerDiscovery follows discovery.docker's engine, when it is enabled, and hands sink
// its routes until stop, which waits for the source to end. An engine that cannot be reached
// does not stop the proxy: the source logs it and tries again.
func startDockerDiscovery(d config.DiscoveryDocker, sink routebook.Sink, log zerolog.Logger) (stop func()) {
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
		err := src.Run(ctx, func(found []routes.Route) { sink.SetDiscovered(dockerSource, found) })
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
