package pool

import "testing"

func TestWildcardCaptureRouteChecks(t *testing.T) {
	for name, cfg := range map[string]Config{
		"exact host":    {Hosts: []string{"play.example.net"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}},
		"any host":      {Hosts: []string{"*"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}},
		"in the port":   {Hosts: []string{"*.example.net"}, Backends: []Backend{{Addr: "internal:${1}"}}},
		"twice":         {Hosts: []string{"*.example.net"}, Backends: []Backend{{Addr: "${1}.${1}:25565"}}},
		"not host:port": {Hosts: []string{"*.example.net"}, Backends: []Backend{{Addr: "${1}.internal"}}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := Config{Hosts: []string{"*.example.net", "*.example.org"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}}
	if _, err := New(ok); err != nil {
		t.Error(err)
	}
}

func TestCaptureTakesTheLongestWildcard(t *testing.T) {
	p, err := New(Config{Hosts: []string{"*.example.net", "*.play.example.net"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Capture("lobby.play.example.net"); got != "lobby" || err != nil {
		t.Errorf("capture %q, %v; want lobby", got, err)
	}
	if got, err := p.Capture("x.example.net"); got != "x" || err != nil {
		t.Errorf("capture %q, %v; want x", got, err)
	}
}
