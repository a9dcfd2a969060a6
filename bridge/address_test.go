package bridge

import (
	"net"
	"testing"
)

func TestGameAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:25565":   "localhost:25565",
		"0.0.0.0:25566":     "localhost:25566",
		"[::1]:25565":       "localhost:25565",
		"[::]:25565":        "localhost:25565",
		"192.168.1.20:2000": "192.168.1.20:2000",
		"[fd00::1]:25565":   "[fd00::1]:25565",
	} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := GameAddress(tcp); got != want {
			t.Errorf("GameAddress(%s) = %q, want %q", addr, got, want)
		}
	}
}

// The bridge names, in ws.BridgeHeader, the address the game reached it on, as the proxy reads
// it; one with a zone it leaves out, as the proxy would refuse it.
func TestBridgeAddress(t *testing.T) {
	for addr, want := range map[*net.TCPAddr]string{
		{IP: net.IPv4(127, 0, 0, 1), Port: 25565}:               "127.0.0.1:25565",
		{IP: net.IPv6loopback, Port: 25566}:                     "[::1]:25566",
		{IP: net.ParseIP("fe80::1"), Port: 25565, Zone: "eth0"}: "",
		{IP: net.ParseIP("192.168.1.20"), Port: 25565}:          "192.168.1.20:25565",
	} {
		ap, ok := bridgeAddress(addr)
		if got := ap.String(); ok != (want != "") || ok && got != want {
			t.Errorf("bridgeAddress(%s) = %s, %v; want %q", addr, got, ok, want)
		}
	}
}
