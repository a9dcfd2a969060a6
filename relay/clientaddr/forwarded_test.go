package clientaddr

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// everyHeader names each kind of header FromHeaders reads, in the order these tests expect.
var everyHeader = []string{"CF-Connecting-IP", "True-Client-IP", "X-Real-IP", "X-Forwarded-For"}

func TestFromHeaders(t *testing.T) {
	trusted, err := ParseNets("trusted network", []string{"173.245.48.0/20", "10.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	cdn := "173.245.48.1"
	cases := []struct {
		name    string
		peer    string
		headers map[string][]string
		want    string
		from    string
	}{
		{"untrusted peer keeps its own address", "198.51.100.9",
			map[string][]string{"Cf-Connecting-Ip": {"203.0.113.1"}, "X-Forwarded-For": {"203.0.113.2"}}, "198.51.100.9", ""},
		{"no headers", cdn, nil, cdn, ""},
		{"CF-Connecting-IP first", cdn,
			map[string][]string{"Cf-Connecting-Ip": {"203.0.113.1"}, "True-Client-Ip": {"203.0.113.2"}, "X-Real-Ip": {"203.0.113.3"}},
			"203.0.113.1", "CF-Connecting-IP"},
		{"True-Client-IP next", cdn,
			map[string][]string{"True-Client-Ip": {"2001:db8::2"}, "X-Real-Ip": {"203.0.113.3"}}, "2001:db8::2", "True-Client-IP"},
		{"X-Real-IP next", cdn,
			map[string][]string{"X-Real-Ip": {" 203.0.113.3 "}, "X-Forwarded-For": {"203.0.113.4"}}, "203.0.113.3", "X-Real-IP"},
		{"invalid CF-Connecting-IP falls through", cdn,
			map[string][]string{"Cf-Connecting-Ip": {"unknown"}, "X-Real-Ip": {"203.0.113.3"}}, "203.0.113.3", "X-Real-IP"},
		{"repeated CF-Connecting-IP falls through", cdn,
			map[string][]string{"Cf-Connecting-Ip": {"203.0.113.1", "203.0.113.9"}, "X-Forwarded-For": {"203.0.113.4"}}, "203.0.113.4", "X-Forwarded-For"},
		{"rightmost untrusted forwarded entry", cdn,
			map[string][]string{"X-Forwarded-For": {"6.6.6.6, 203.0.113.4, 10.1.2.3"}}, "203.0.113.4", "X-Forwarded-For"},
		{"walks across header lines", cdn,
			map[string][]string{"X-Forwarded-For": {"6.6.6.6, 203.0.113.4", "10.1.2.3,173.245.50.5"}}, "203.0.113.4", "X-Forwarded-For"},
		{"entries with ports and mapped IPv4", cdn,
			map[string][]string{"X-Forwarded-For": {"[2001:db8::5]:4711, ::ffff:10.9.9.9"}}, "2001:db8::5", "X-Forwarded-For"},
		{"IPv4 with port", cdn, map[string][]string{"X-Forwarded-For": {"203.0.113.4:80"}}, "203.0.113.4", "X-Forwarded-For"},
		{"invalid entry stops the walk", cdn,
			map[string][]string{"X-Forwarded-For": {"203.0.113.4, garbage, 10.1.2.3"}}, cdn, ""},
		{"empty entry stops the walk", cdn,
			map[string][]string{"X-Forwarded-For": {"203.0.113.4,,10.1.2.3"}}, cdn, ""},
		{"all entries trusted", cdn, map[string][]string{"X-Forwarded-For": {"10.1.2.3, 10.3.2.1"}}, cdn, ""},
		{"zone refused", cdn, map[string][]string{"X-Real-Ip": {"fe80::1%eth0"}}, cdn, ""},
		{"mapped peer is trusted", "::ffff:" + cdn, map[string][]string{"X-Real-Ip": {"203.0.113.3"}}, "203.0.113.3", "X-Real-IP"},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, vs := range tc.headers {
			for _, v := range vs {
				h.Add(k, v)
			}
		}
		got, from := FromHeaders(netip.MustParseAddr(tc.peer), trusted, everyHeader, h)
		if got != netip.MustParseAddr(tc.want) || from != tc.from {
			t.Errorf("%s: %v from %q, want %v from %q", tc.name, got, from, tc.want, tc.from)
		}
	}
}

func TestClientIPHeadersList(t *testing.T) {
	trusted, err := ParseNets("trusted network", []string{"173.245.48.0/20"})
	if err != nil {
		t.Fatal(err)
	}
	cdn := netip.MustParseAddr("173.245.48.1")
	h := http.Header{}
	h.Set("Cf-Connecting-Ip", "203.0.113.1")
	h.Set("X-Real-Ip", "203.0.113.3") // what a client behind Cloudflare could send itself
	h.Set("X-Forwarded-For", "203.0.113.4")
	h.Set("X-Client-Addr", "203.0.113.5")
	for _, c := range []struct {
		names []string
		want  string
		from  string
	}{
		{[]string{"CF-Connecting-IP"}, "203.0.113.1", "CF-Connecting-IP"},
		{[]string{"X-Real-IP", "CF-Connecting-IP"}, "203.0.113.3", "X-Real-IP"}, // the list's order
		{[]string{"x-forwarded-for"}, "203.0.113.4", "X-Forwarded-For"},         // names are case-blind
		{[]string{"X-Client-Addr"}, "203.0.113.5", "X-Client-Addr"},             // any single-address header
		{[]string{"True-Client-IP"}, "173.245.48.1", ""},                        // named but absent
		{[]string{}, "173.245.48.1", ""},                                        // none
		{nil, "173.245.48.1", ""},                                               // none, the default
	} {
		got, from := FromHeaders(cdn, trusted, c.names, h)
		if got != netip.MustParseAddr(c.want) || from != c.from {
			t.Errorf("%v: %v from %q, want %s from %q", c.names, got, from, c.want, c.from)
		}
	}
}

func FuzzForwardedFor(f *testing.F) {
	f.Add("173.245.48.1", "", "", "6.6.6.6, 203.0.113.4, 10.1.2.3", "10.0.0.1")
	f.Add("173.245.48.1", "203.0.113.1", "unknown", "", "")
	f.Add("198.51.100.9", "203.0.113.1", "", "203.0.113.4", "")
	f.Add("::ffff:10.0.0.1", "", "[::1]:80", ", ,", "2001:db8::1%eth0")
	f.Add("10.0.0.1", "", "", "10.0.0.2,[2001:db8::5]:4711", "10.0.0.3")
	trusted, err := ParseNets("trusted network", []string{"173.245.48.0/20", "10.0.0.0/8", "::1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, peerText, cf, realIP, xff1, xff2 string) {
		peer, err := netip.ParseAddr(peerText)
		if err != nil {
			return
		}
		h := http.Header{}
		for name, v := range map[string]string{"CF-Connecting-IP": cf, "X-Real-IP": realIP} {
			if v != "" {
				h.Set(name, v)
			}
		}
		h.Add("X-Forwarded-For", xff1)
		h.Add("X-Forwarded-For", xff2)
		got, from := FromHeaders(peer, trusted, everyHeader, h)
		switch {
		case from == "":
			if got != peer {
				t.Fatalf("no header used but got %v, peer %v", got, peer)
			}
		case !trusted.Contains(peer):
			t.Fatalf("untrusted peer %v, yet %v taken from %s", peer, got, from)
		case !got.IsValid() || got.Zone() != "" || got.Is4In6():
			t.Fatalf("%v from %s is not a plain address", got, from)
		case from == "X-Forwarded-For" && trusted.Contains(got):
			t.Fatalf("%v from X-Forwarded-For is itself trusted", got)
		case !appearsIn(h.Values(from), got):
			t.Fatalf("%v does not appear in %s: %q", got, from, h.Values(from))
		}
	})
}

// appearsIn reports whether a is written, possibly with a port or as a
// mapped IPv4 address, in one of the comma-separated entries of values.
func appearsIn(values []string, a netip.Addr) bool {
	for _, entry := range strings.Split(strings.Join(values, ","), ",") {
		entry = strings.TrimSpace(entry)
		b, err := netip.ParseAddr(entry)
		if ap, perr := netip.ParseAddrPort(entry); err != nil && perr == nil {
			b = ap.Addr()
		}
		if b.Unmap() == a {
			return true
		}
	}
	return false
}
