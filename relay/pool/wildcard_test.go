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

// Chosen finds the backend a session is connected to by its address, templated or not, and
// counts the session there; an address no backend has now is not found.
func TestChosenCountsOnTheNamedBackend(t *testing.T) {
	p, err := New(Config{Hosts: []string{"*.example.net"}, Backends: []Backend{{Addr: "10.0.0.1:25565"}, {Addr: "${1}.internal:25565"}}})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]int{"10.0.0.1:25565": 0, "lobby.internal:25565": 1} {
		c, ok := p.Chosen(addr)
		if !ok {
			t.Fatalf("%s: not found", addr)
		}
		done := c.Track()
		if p.Active(want) != 1 || p.Active(1-want) != 0 {
			t.Errorf("%s: active %d and %d, want 1 on backend %d", addr, p.Active(0), p.Active(1), want)
		}
		done()
	}
	for _, addr := range []string{"10.0.0.2:25565", ".internal:25565", "lobby.internal:25566", ""} {
		if _, ok := p.Chosen(addr); ok {
			t.Errorf("%q: found, want no backend", addr)
		}
	}
}
