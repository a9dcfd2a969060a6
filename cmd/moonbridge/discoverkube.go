package main

import (
	"context"
	"fmt"
	"os"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
	"github.com/moonbridge/moonbridge/discover/kube"
	"github.com/moonbridge/moonbridge/routes"
)

// kubeSource names the Kubernetes source's routes for the sink.
const kubeSource = config.OriginKubernetes

// startKubeDiscovery watches the Kubernetes API when discovery.kubernetes is on, handing each
// set of routes to sink; stop ends the watch and waits for it. Outside a pod without api_url,
// or with a CA file that holds no certificate, it fails at once.
func startKubeDiscovery(cfg config.Config, sink routebook.Sink, log zerolog.Logger) (stop func(), err error) {
	k := cfg.Discovery.Kubernetes
	if !k.Enabled {
		return func() {}, nil
	}
	settings, err := kubeSettings(k, os.Getenv)
	if err != nil {
		return nil, err
	}
	src, err := kube.New(settings, log.With().Str("discovery", kubeSource).Logger())
	if err != nil {
		return nil, fmt.Errorf("discovery.kubernetes: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = src.Run(ctx, func(found []routes.Route) { sink.SetDiscovered(kubeSource, found) })
	}()
	return func() { cancel(); <-done }, nil
}

// kubeSettings is the section as discover/kube takes it: without api_url, the pod's cluster
// (getenv reads what the kubelet set), and token_file and ca_file in place of the service
// account's when set.
func kubeSettings(k config.KubeDiscovery, getenv func(string) string) (kube.Settings, error) {
	api := kube.API{URL: k.APIURL}
	if k.APIURL == "" {
		var err error
		if api, err = kube.InCluster(getenv); err != nil {
			return kube.Settings{}, fmt.Errorf("discovery.kubernetes: %w", err)
		}
	}
	if k.TokenFile != "" {
		api.TokenFile = k.TokenFile
	}
	if k.CAFile != "" {
		api.CAFile = k.CAFile
	}
	return kube.Settings{API: api, Namespace: k.Namespace, AnnotationPrefix: k.AnnotationPrefix}, nil
}
