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
	// Wake lets a container labelled wake=true be started for a login and stopped after idle,
	// that container only; off, such a container's route is left out (a label can come from any
	// image). A route's wake.container names any other container only as allow.containers lists.
	Wake bool `yaml:"wake"`
	// RouteTrust: the hosts the source's routes may take from the file's and the API's, and what
	// they may name (routetrust.go).
	RouteTrust `yaml:",inline"`
}

func defaultDiscoveryDocker() DiscoveryDocker {
	endpoint, _ := docker.ParseEndpoint(docker.DefaultEndpoint)
	return DiscoveryDocker{Endpoint: endpoint, LabelPrefix: "moonbridge", Resync: time.Minute, RouteTrust: defaultRouteTrust()}
}

func (d DiscoveryDocker) validate() []error {
	const key = "discovery.docker"
	errs := d.RouteTrust.validate(key)
	if !dnsSubdomain.MatchString(d.LabelPrefix) {
		errs = append(errs, invalid(key+".label_prefix", "%q is not a label prefix such as moonbridge or com.example.mc", d.LabelPrefix))
	}
	if d.Resync <= 0 {
		errs = append(errs, invalid(key+".resync", "must be a positive duration such as 1m"))
	}
	return errs
}
