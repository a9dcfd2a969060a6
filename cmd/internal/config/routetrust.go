package config

import (
	"errors"
	"fmt"
	"slices"

	"github.com/moonbridge/moonbridge/relay"
)

// What a route from elsewhere than the config file may do. The file is the owner's; the routes
// API's text is whoever holds its token's, and a discovered route is whoever can label a
// container or annotate a Service. So such a route runs no program, calls no URL, starts no
// container and reads no file that the owner did not list for its source (allow), and takes no
// host that a route of the file (or, for discovery, of the API) serves unless the owner lets
// its source claim it (hosts). docs/scaling.md has the whole rule.

// The origins of routes: the config file, the routes API, and the discovery sources.
const (
	OriginFile       = "file"
	OriginAPI        = "api"
	OriginDocker     = "docker"
	OriginKubernetes = "kubernetes"
)

// RouteTrust is what the owner lets one source of routes do beyond the file's rules:
// admin.routes_api, discovery.docker and discovery.kubernetes each have one, inline.
type RouteTrust struct {
	// Hosts are host patterns the source's routes may claim although a route the book lists
	// before them (the file's, then the API's) serves them: a route host that one of them
	// covers (relay.Covers) is the source's to take.
	Hosts []string `yaml:"hosts"`
	// Allow lists the programs, URLs, containers and files the source's routes may name.
	Allow RouteAllow `yaml:"allow"`
}

// RouteAllow lists, value by value, what a source's routes may name: a route naming anything
// else is refused (the API) or left out (discovery), the reason naming the key.
type RouteAllow struct {
	// Commands are the wake.command and wake.stop_command a route may run, each the program
	// and its arguments exactly as listed.
	Commands [][]string `yaml:"commands"`
	// Webhooks are the wake.webhook URLs a route may call.
	Webhooks []string `yaml:"webhooks"`
	// Containers are the wake.container names or IDs a route may start and stop.
	Containers []string `yaml:"containers"`
	// SecretFiles are the velocity_secret_file paths a route may read.
	SecretFiles []string `yaml:"secret_files"`
	// IconFiles are the status.icon paths a route may read.
	IconFiles []string `yaml:"icon_files"`
}

func defaultRouteTrust() RouteTrust {
	return RouteTrust{Hosts: []string{}, Allow: RouteAllow{Commands: [][]string{}, Webhooks: []string{}, Containers: []string{}, SecretFiles: []string{}, IconFiles: []string{}}}
}

// MayClaim says whether the source may take host, a route's host pattern, from routes listed
// before its own.
func (t RouteTrust) MayClaim(host string) bool {
	return slices.ContainsFunc(t.Hosts, func(allowed string) bool { return relay.Covers(allowed, host) })
}

// Trust is the trust of origin's routes and the section it is written in; a source the config
// has no section for is trusted with nothing.
func (c Config) Trust(origin string) (RouteTrust, string) {
	switch origin {
	case OriginAPI:
		return c.Admin.RoutesAPI.RouteTrust, "admin.routes_api"
	case OriginDocker:
		return c.Discovery.Docker.RouteTrust, "discovery.docker"
	case OriginKubernetes:
		return c.Discovery.Kubernetes.RouteTrust, "discovery.kubernetes"
	}
	return RouteTrust{}, "discovery." + origin
}

// CheckRouteFrom checks a route from origin (the routes API, a discovery source) as Validate
// checks the file's, after refusing what its source may not name: its own keys, the files it
// reads, and the access.keys its tokens need. key names it in the errors. A file that is not
// allowed is never opened, so the answer tells nothing of it.
func (c Config) CheckRouteFrom(origin, key string, r Route) error {
	if errs := c.untrusted(origin, key, r); len(errs) > 0 {
		return errors.Join(errs...)
	}
	errs := append(validateRoute(r, key), validateRouteFiles(r, key)...)
	return errors.Join(append(errs, c.Access.keysFor(key, r))...)
}

// untrusted lists the keys of r that name a program, URL, container or file origin's allow
// list does not have.
func (c Config) untrusted(origin, key string, r Route) []error {
	trust, section := c.Trust(origin)
	allow := trust.Allow
	refuse := func(routeKey, what, list string) error {
		return invalid(key+"."+routeKey, "a route from %s %s only as %s.allow.%s lists", originName(origin), what, section, list)
	}
	var errs []error
	w := r.Wake
	if len(w.Command) > 0 && !slices.ContainsFunc(allow.Commands, func(c []string) bool { return slices.Equal(c, w.Command) }) {
		errs = append(errs, refuse("wake.command", "runs commands", "commands"))
	}
	if len(w.StopCommand) > 0 && !slices.ContainsFunc(allow.Commands, func(c []string) bool { return slices.Equal(c, w.StopCommand) }) {
		errs = append(errs, refuse("wake.stop_command", "runs commands", "commands"))
	}
	if w.Webhook != "" && !slices.Contains(allow.Webhooks, w.Webhook) {
		errs = append(errs, refuse("wake.webhook", "calls webhooks", "webhooks"))
	}
	if w.Container != "" && !slices.Contains(allow.Containers, w.Container) && !c.wakesOwnContainer(origin) {
		errs = append(errs, refuse("wake.container", "starts containers", "containers"))
	}
	if r.VelocitySecretFile != "" && !slices.Contains(allow.SecretFiles, r.VelocitySecretFile) {
		errs = append(errs, refuse("velocity_secret_file", "reads files", "secret_files"))
	}
	if r.Status.Icon != "" && !slices.Contains(allow.IconFiles, r.Status.Icon) {
		errs = append(errs, refuse("status.icon", "reads files", "icon_files"))
	}
	return errs
}

// wakesOwnContainer says whether origin's routes may wake their container without a list: the
// Docker source names only the container the route was found on, and may start and stop it
// when discovery.docker.wake is on.
func (c Config) wakesOwnContainer(origin string) bool {
	return origin == OriginDocker && c.Discovery.Docker.Wake
}

// originName says where routes of origin come from, for a sentence.
func originName(origin string) string {
	switch origin {
	case OriginFile:
		return "the config file"
	case OriginAPI:
		return "the routes API"
	}
	return origin
}

// validate checks the section's host patterns and allowed commands and webhooks; key names the
// section ("admin.routes_api").
func (t RouteTrust) validate(key string) []error {
	var errs []error
	for i, h := range t.Hosts {
		if err := relay.CheckHostPattern(h); err != nil {
			errs = append(errs, invalid(fmt.Sprintf("%s.hosts[%d]", key, i), "%q: %v", h, err))
		}
	}
	for i, cmd := range t.Allow.Commands {
		if len(cmd) == 0 || cmd[0] == "" {
			errs = append(errs, invalid(fmt.Sprintf("%s.allow.commands[%d]", key, i), "name the program and its arguments, such as [/usr/local/bin/start, survival]"))
		}
	}
	for i, u := range t.Allow.Webhooks {
		errs = append(errs, httpURL(fmt.Sprintf("%s.allow.webhooks[%d]", key, i), u))
	}
	return errs
}
