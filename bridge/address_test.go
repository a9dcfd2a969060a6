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
