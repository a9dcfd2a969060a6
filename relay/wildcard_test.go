package relay

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// The part of the host a wildcard matched names the backend: 1.play.example.net goes to
// 127.0.0.1 at the backend's port, and the session line names that address.
func TestWildcardCaptureNamesTheBackend(t *testing.T) {
	backend := startBackend(t, false)
	_, port, _ := net.SplitHostPort(backend.addr())
	log := &logLines{}
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Hosts: []string{"*.play.example.net"}, Backends: []Backend{{Addr: "127.0.0.${1}:" + port}}}}
		c.Logger = c.Logger.Output(log)
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	exchange(t, conn, "1.Play.Example.Net.", 64)
	if !backend.sawHost("1.Play.Example.Net.") {
		t.Error("the backend the capture names did not get the player's handshake")
	}
	conn.Close()
	testutil.WaitFor(t, "the end line naming the backend", func() bool { return log.count(`"backend":"127.0.0.1:`+port+`"`, "session ended") == 1 })
}

// A capture that is not one DNS label (an address with dots, an underscore, a leading hyphen,
// nothing) names no backend: the player gets the fallback and no backend is dialled, though
// 127.0.0.1 would have reached one.
func TestWildcardCaptureMustBeADNSLabel(t *testing.T) {
	backend := startBackend(t, false)
	_, port, _ := net.SplitHostPort(backend.addr())
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Hosts: []string{"*.play.example.net"}, Backends: []Backend{{Addr: "${1}:" + port}}}}
		c.Limits.ConnectionRate, c.Limits.ConnectionBurst = 1000, 1000
	}, Minecraft)
	for _, host := range []string{"127.0.0.1.play.example.net", "a_b.play.example.net", "-1.play.example.net", ".play.example.net"} {
		conn := dialClient(t, Minecraft, addr)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		conn.Write(handshakeFrame(host, mc.NextLogin))
		body, err := readFrameFrom(bufio.NewReader(conn))
		conn.Close()
		if err != nil || !strings.Contains(string(body), DefaultFallback().Disconnect) {
			t.Errorf("%s: got %q, %v; want the fallback disconnect", host, body, err)
		}
	}
	if n := backend.acceptedCount(t); n != 0 {
		t.Errorf("bad captures reached the backend %d times", n)
	}
}

func TestWildcardCaptureRouteChecks(t *testing.T) {
	for name, route := range map[string]Route{
		"exact host":    {Hosts: []string{"play.example.net"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}},
		"any host":      {Hosts: []string{"*"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}},
		"in the port":   {Hosts: []string{"*.example.net"}, Backends: []Backend{{Addr: "internal:${1}"}}},
		"twice":         {Hosts: []string{"*.example.net"}, Backends: []Backend{{Addr: "${1}.${1}:25565"}}},
		"not host:port": {Hosts: []string{"*.example.net"}, Backends: []Backend{{Addr: "${1}.internal"}}},
	} {
		if _, err := NewRouter([]Route{route}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := Route{Hosts: []string{"*.example.net", "*.example.org"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}}
	if _, err := NewRouter([]Route{ok}); err != nil {
		t.Error(err)
	}
}

func TestCaptureTakesTheLongestWildcard(t *testing.T) {
	r := Route{Hosts: []string{"*.example.net", "*.play.example.net"}, Backends: []Backend{{Addr: "${1}.internal:25565"}}}
	if got, err := r.capture("lobby.play.example.net"); got != "lobby" || err != nil {
		t.Errorf("capture %q, %v; want lobby", got, err)
	}
	if got, err := r.capture("x.example.net"); got != "x" || err != nil {
		t.Errorf("capture %q, %v; want x", got, err)
	}
}
