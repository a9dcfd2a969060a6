package relay

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// The part of the host a wildcard matched names the backend: 1.play.example.net goes to
// 127.0.0.1 at the backend's port, and the session line names that address.
func TestWildcardCaptureNamesTheBackend(t *testing.T) {
	backend := startBackend(t, false)
	_, port, _ := net.SplitHostPort(backend.addr())
	log := &logLines{}
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Hosts: []string{"*.play.example.net"}, Backends: []pool.Backend{{Addr: "127.0.0.${1}:" + port}}}}
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
		c.Routes = []Route{{Hosts: []string{"*.play.example.net"}, Backends: []pool.Backend{{Addr: "${1}:" + port}}}}
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
