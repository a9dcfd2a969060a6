package clientaddr

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseNets(t *testing.T) {
	nets, err := ParseNets("trusted network", []string{"173.245.48.0/20", " 2400:cb00::/32 ", "127.0.0.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		addr string
		want bool
	}{
		{"173.245.48.0", true},
		{"173.245.63.255", true},
		{"173.245.64.0", false},
		{"::ffff:173.245.50.1", true}, // IPv4 seen through a dual-stack socket
		{"2400:cb00:1::1", true},
		{"2400:cb01::1", false},
		{"127.0.0.1", true},
		{"127.0.0.2", false},
		{"::1", true},
	}
	for _, tc := range cases {
		if got := nets.Contains(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("Contains(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	if (Nets{}).Contains(netip.MustParseAddr("127.0.0.1")) || (Nets{}).Contains(netip.Addr{}) {
		t.Error("an empty list trusts someone")
	}
}

func TestParseNetsRejects(t *testing.T) {
	for _, s := range []string{"", "10.0.0.5/8", "10.0.0.0/33", "fe80::1%eth0", "example.com", "10.0.0.0/"} {
		_, err := ParseNets("trusted network", []string{"10.0.0.0/8", s})
		if err == nil {
			t.Errorf("ParseNets accepted %q", s)
		}
	}
	_, err := ParseNets("trusted network", []string{"10.0.0.5/8"})
	if err == nil || !strings.Contains(err.Error(), "did you mean 10.0.0.0/8") {
		t.Errorf("host bits error %v does not suggest the network", err)
	}
}
