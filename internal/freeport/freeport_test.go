package freeport

import (
	"net"
	"strconv"
	"testing"
)

// The address is loopback, free (it can be listened on), and below the ephemeral range where
// this system tells it.
func TestLoopbackIsFreeAndBelowTheEphemeralRange(t *testing.T) {
	first, known := ephemeralStart()
	for range 20 {
		addr, err := Loopback()
		if err != nil {
			t.Fatal(err)
		}
		host, portText, _ := net.SplitHostPort(addr)
		port, _ := strconv.Atoi(portText)
		if host != "127.0.0.1" || port <= 0 {
			t.Fatalf("address %q", addr)
		}
		if known && first > lowest+tries && (port < lowest || port >= first) {
			t.Errorf("port %d outside [%d, %d)", port, lowest, first)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		ln.Close()
	}
}
