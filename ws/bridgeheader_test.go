package ws

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestParseBridgeHeaderAccepts(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1:25565":        "127.0.0.1:25565",
		"192.168.1.20:1":         "192.168.1.20:1",
		"[::1]:25565":            "[::1]:25565",
		"[2001:db8::7]:65535":    "[2001:db8::7]:65535",
		"[::ffff:127.0.0.1]:443": "127.0.0.1:443", // a dual-stack listener's IPv4 game
	}
	for in, want := range cases {
		got, err := ParseBridgeHeader(in)
		if err != nil || got != netip.MustParseAddrPort(want) {
			t.Errorf("ParseBridgeHeader(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
}

func TestParseBridgeHeaderRefuses(t *testing.T) {
	for _, in := range []string{
		"", "localhost:25565", "bridge.example:25565", // names
		"127.0.0.1", "[::1]", "127.0.0.1:", // no port
		"127.0.0.1:0", "[::1]:0", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80", // port out of range
		"[fe80::1%eth0]:25565",                                                    // zone
		"127.0.0.1:25565 ", " 127.0.0.1:25565", "127.0.0.1:25565, 10.0.0.1:25565", // extra text
		"127.0.0.1:25565/x", "::1:25565", "[127.0.0.1]:25565", "01.2.3.4:25565",
		"0.0.0.0:25565", "[::]:25565", "224.0.0.1:25565", // never the address of an accepted connection
	} {
		got, err := ParseBridgeHeader(in)
		var he *BridgeHeaderError
		if !errors.As(err, &he) || he.Value != in || got.IsValid() {
			t.Errorf("ParseBridgeHeader(%q) = %v, %v; want a *BridgeHeaderError", in, got, err)
		}
	}
}

func TestBridgeHeaderErrorQuotesAShortPrefix(t *testing.T) {
	_, err := ParseBridgeHeader(strings.Repeat("x", 10000))
	if msg := err.Error(); len(msg) > 200 || !strings.Contains(msg, BridgeHeader) {
		t.Fatalf("error of %d bytes: %.200s", len(msg), msg)
	}
}
