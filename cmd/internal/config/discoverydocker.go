package config

import (
	"time"

	"github.com/moonbridge/moonbridge/discover/docker"
)

// DiscoveryDocker follows a Docker engine's (or podman's) labelled containers as routes
// (discover/docker; docs/discovery-docker.md), and is the engine that a route's wake.container
// is started and stopped through, whether or not Enabled.
type DiscoveryDocker struct {
	Enabled bool `yaml:"enabled"`
	// Endpoint is the engine's API: unix:///var/run/docker.sock, podman's
	// unix:///run/podman/podman.sock, or tcp://host:port (write ${DOCKER_HOST:...} to take
	// Docker's variable).
	Endpoint docker.Endpoint `yaml:"endpoint"`
	// LabelPrefix starts every label read: moonbridge reads moonbridge.host, moonbridge.port, ...
	LabelPrefix string `yaml:"label_prefix"`
	// Resync lists the containers again this often, besides after each event.
	Resync time.Duration `yaml:"resync"`
}

func defaultDiscoveryDocker() DiscoveryDocker {
	endpoint, _ := docker.ParseEndpoint(docker.DefaultEndpoint)
	return DiscoveryDocker{Endpoint: endpoint, LabelPrefix: "moonbridge", Resync: time.Minute}
}

func (d DiscoveryDocker) validate() []error {
	const key = "discovery.docker"
	var errs []error
	if !dnsSubdomain.MatchString(d.LabelPrefix) {
		errs = append(errs, invalid(key+".label_prefix", "%q is not a label prefix such as moonbridge or com.example.mc", d.LabelPrefix))
	}
	if d.Resync <= 0 {
		errs = append(errs, invalid(key+".resync", "must be a positive duration such as 1m"))
	}
	return errs
}
