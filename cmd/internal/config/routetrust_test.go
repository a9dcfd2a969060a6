package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/routes"
)

// A route from the API names a secret file only as admin.routes_api.allow lists it; an unlisted
// one is refused without being opened, so a missing file and a present one get one answer; a
// listed one is checked as the file's routes are.
func TestCheckRouteFromOpensOnlyListedFiles(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "velocity.secret")
	r := routes.Default("10.0.0.5:25565")
	r.Auth, r.Forwarding, r.VelocitySecretFile = routes.AuthOffline, auth.ForwardVelocity, missing
	cfg := Default()
	err := cfg.CheckRouteFrom(OriginAPI, "v", r)
	if err == nil || !strings.Contains(err.Error(), "v.velocity_secret_file: a route from the routes API reads files only as admin.routes_api.allow.secret_files lists") ||
		strings.Contains(err.Error(), "cannot read") {
		t.Errorf("an unlisted secret file: %v", err)
	}
	cfg.Admin.RoutesAPI.Allow.SecretFiles = []string{missing}
	if err := cfg.CheckRouteFrom(OriginAPI, "v", r); err == nil || !strings.Contains(err.Error(), "v.velocity_secret_file: cannot read") {
		t.Errorf("a listed secret file that is missing: %v", err)
	}
	if err := cfg.CheckRouteFrom(OriginKubernetes, "v", r); err == nil || !strings.Contains(err.Error(), "discovery.kubernetes.allow.secret_files") {
		t.Errorf("the API's list is not the Services': %v", err)
	}
}

// The sections' hosts and allow lists are checked at load, naming key and line.
func TestRouteTrustErrorsNameKeyAndLine(t *testing.T) {
	for text, want := range map[string]string{
		"discovery:\n  docker:\n    hosts: ['play.test:25565']\n":           `line 3: discovery.docker.hosts[0]: "play.test:25565": want a name`,
		"discovery:\n  kubernetes:\n    hosts: ['*.']\n":                    `line 3: discovery.kubernetes.hosts[0]: "*.": want a name`,
		"discovery:\n  docker:\n    allow:\n      commands: [[]]\n":         "line 4: discovery.docker.allow.commands[0]: name the program",
		"discovery:\n  docker:\n    allow:\n      webhooks: ['ftp://x']\n":  `discovery.docker.allow.webhooks[0]: "ftp://x" is not`,
		"discovery:\n  kubernetes:\n    allow:\n      containers: {a: b}\n": "line 4: discovery.kubernetes.allow.containers: want a list",
	} {
		_, err := Parse([]byte(text), noEnv)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// A route from the API or discovery names a status icon only as its source's allow.icon_files
// lists it: an unlisted one is never opened (so the proxy tells nothing of the file), a listed
// one is read as the file's routes' are.
func TestCheckRouteFromOpensOnlyListedIcons(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "icon.png")
	r := routes.Default("10.0.0.5:25565")
	r.Status.Icon = missing
	cfg := Default()
	err := cfg.CheckRouteFrom(OriginAPI, "v", r)
	if err == nil || !strings.Contains(err.Error(), "v.status.icon: a route from the routes API reads files only as admin.routes_api.allow.icon_files lists") ||
		strings.Contains(err.Error(), "cannot read") {
		t.Errorf("an unlisted icon: %v", err)
	}
	cfg.Discovery.Docker.Allow.IconFiles = []string{missing}
	if err := cfg.CheckRouteFrom(OriginDocker, "v", r); err == nil || !strings.Contains(err.Error(), "v.status.icon: cannot read") {
		t.Errorf("a listed icon that is missing: %v", err)
	}
}
