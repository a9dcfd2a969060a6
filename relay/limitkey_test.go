package relay

import (
	"errors"
	"net/netip"
	"testing"
)

// TestIPv6CountsPerPrefix: the per-address limit counts an IPv6 client by its /64 (the
// default), so one host cannot take a new address from its /64 for every connection; another
// /64, an IPv4 address and an IPv4-mapped one count on their own, and 128 counts each address.
func TestIPv6CountsPerPrefix(t *testing.T) {
	l := Limits{MaxConnectionsPerIP: 2, ConnectionRate: 1000, ConnectionBurst: 1000}.withDefaults()
	c := newCounter(l)
	take := func(addr string) error {
		_, err := c.acquireAddr(netip.MustParseAddr(addr))
		return err
	}
	for _, a := range []string{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9"} {
		if err := take(a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	var le *LimitError
	if err := take("2001:db8:1:2:abcd::7"); !errors.As(err, &le) || le.Reason != refusedPerAddr {
		t.Fatalf("a third address of one /64: %v, want the per-address refusal", err)
	}
	for _, a := range []string{"2001:db8:1:3::1", "192.0.2.1", "::ffff:192.0.2.1"} {
		if err := take(a); err != nil {
			t.Fatalf("%s, not in the full /64: %v", a, err)
		}
	}
	if err := take("192.0.2.1"); !errors.As(err, &le) {
		t.Fatalf("192.0.2.1 a third time (once IPv4-mapped): %v, want a refusal", err)
	}

	l.IPv6Prefix = 128
	c = newCounter(l)
	for _, a := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2::3"} {
		if err := take(a); err != nil {
			t.Fatalf("per /128, %s: %v", a, err)
		}
	}
}
