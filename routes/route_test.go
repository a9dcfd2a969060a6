package routes

import (
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/relay"
)

// A route names itself as the relay's route of the same name, hosts and paths does.
func TestLabelIsTheRelays(t *testing.T) {
	for _, r := range []Route{
		{Name: "lobby", Hosts: []string{"*"}},
		{Hosts: []string{"play.example.net", "*.example.net"}},
		{Hosts: []string{"*"}, Paths: []string{"/creative"}},
		{},
	} {
		rr := relay.Route{Name: r.Name, Hosts: r.Hosts, Paths: r.Paths}
		if len(r.Hosts) > 0 && r.Label() != rr.Label() {
			t.Errorf("%+v: label %q, the relay's %q", r, r.Label(), rr.Label())
		}
	}
	if got := (Route{}).Label(); got != "" {
		t.Errorf("a route without name or host is labelled %q", got)
	}
}

// Keys a route's text leaves out keep their defaults, a whole section or some of its keys.
func TestDecodingStartsFromTheDefaults(t *testing.T) {
	var r Route
	if err := yaml.Unmarshal([]byte("hosts: [a.example.net]\nbackends: ['10.0.0.5:25565']\nhealth_check: {rise: 5}\n"), &r); err != nil {
		t.Fatal(err)
	}
	want := Default("10.0.0.5:25565")
	want.Hosts, want.HealthCheck.Rise = []string{"a.example.net"}, 5
	if r.HealthCheck != want.HealthCheck || r.Balance != BalanceFailover || r.Auth != AuthPassthrough || r.Access.Tokens != want.Access.Tokens || r.Wake.On() {
		t.Errorf("decoded %+v, want the defaults %+v", r, want)
	}
}
