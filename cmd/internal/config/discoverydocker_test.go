package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/discover/docker"
)

func TestDiscoveryDockerKeys(t *testing.T) {
	cfg, err := Parse([]byte("discovery:\n  docker:\n    enabled: true\n    endpoint: unix:///run/podman/podman.sock\n    label_prefix: com.example.mc\n    resync: 30s\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := DiscoveryDocker{Enabled: true, Endpoint: docker.Endpoint{Network: "unix", Address: "/run/podman/podman.sock"}, LabelPrefix: "com.example.mc", Resync: 30 * time.Second,
		RouteTrust: defaultRouteTrust()}
	if !reflect.DeepEqual(cfg.Discovery.Docker, want) {
		t.Errorf("got %+v, want %+v", cfg.Discovery.Docker, want)
	}
	if d := Default().Discovery.Docker; d.Enabled || d.Endpoint.String() != docker.DefaultEndpoint || d.LabelPrefix != "moonbridge" || d.Resync != time.Minute {
		t.Errorf("defaults %+v", d)
	}
}

func TestDiscoveryDockerErrorsNameKeyAndLine(t *testing.T) {
	for text, want := range map[string]string{
		"endpoint: /var/run/docker.sock": `line 3: discovery.docker.endpoint: "/var/run/docker.sock" is not unix:///path/to/socket or tcp://host:port`,
		"endpoint: tcp://docker":         `discovery.docker.endpoint: "tcp://docker" is not`,
		"label_prefix: Moonbridge":       `discovery.docker.label_prefix: "Moonbridge" is not a label prefix`,
		"label_prefix: moonbridge.":      `discovery.docker.label_prefix: "moonbridge." is not a label prefix`,
		"resync: 0s":                     "discovery.docker.resync: must be a positive duration",
		"endpoint: \"\"":                 `discovery.docker.endpoint: "" is not`,
	} {
		_, err := Parse([]byte("discovery:\n  docker:\n    "+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, want)
		}
	}
}

// wake.container is a third way to wake, stopped through the engine: stop_after_idle needs no
// stop_command, and takes none.
func TestWakeContainer(t *testing.T) {
	route := "routes:\n  - hosts: [survival.example.net]\n    backends: [\"mc:25565\"]\n    wake:\n      container: survival\n"
	cfg, err := Parse([]byte(route+"      stop_after_idle: 10m\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Routes[0].Wake; !w.On() || w.Container != "survival" || w.StopAfterIdle != 10*time.Minute {
		t.Errorf("wake %+v", w)
	}
	for text, want := range map[string]string{
		"      command: [x]":         "routes[0].wake: set one of command, webhook and container",
		"      webhook: http://h/":   "routes[0].wake: set one of command, webhook and container",
		"      stop_command: [x]":    "routes[0].wake.stop_command: a container is stopped through its engine",
		"      stop_after_idle: -1s": "routes[0].wake.stop_after_idle",
	} {
		_, err := Parse([]byte(route+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, want)
		}
	}
}
