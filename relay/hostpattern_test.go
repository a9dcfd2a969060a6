package relay

import (
	"errors"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/relay/pool"
)

// testBackends is a backend for routes whose sessions are never dialled.
var testBackends = []pool.Backend{{Addr: "127.0.0.1:1"}}

// Names, wildcards of names and "*" are host patterns; anything else is refused with a reason.
func TestCheckHostPattern(t *testing.T) {
	for _, good := range []string{"*", "play.example.net", "Play.Example.NET.", "*.example.net", "localhost", "10.0.0.5",
		"a-b.example.net", strings.Repeat("a", 63) + ".net", strings.Repeat("abcdefgh.", 27) + "ab"} {
		if err := CheckHostPattern(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{"", "bad host!", "a..b", "play.test:25565", ".example.net", "example.net..", "*.", "*.*",
		"a*.example.net", "mc.*.example.net", "*example.net", "-a.example.net", "a-.example.net", strings.Repeat("a", 64) + ".net",
		strings.Repeat("abcdefgh.", 28) + "ab", "a/b", "[::1]", "a_b.example.net", "pl\x00y.example.net"} {
		if err := CheckHostPattern(bad); !errors.Is(err, ErrHostPattern) {
			t.Errorf("%q: %v, want ErrHostPattern", bad, err)
		}
	}
}

// Takes answers as the Router picks: a route listed after one with held patterns takes a host
// of it exactly when the Router would send it one of that route's players (or when both are
// as specific, so it gets nothing for that host).
func TestTakesAsTheRouterMatches(t *testing.T) {
	for _, tc := range []struct {
		claim string
		held  []string
		want  bool
	}{
		{"play.example.net", []string{"*"}, true},
		{"*.net", []string{"*"}, true},
		{"*", []string{"*"}, true},
		{"play.example.net", []string{"*.example.net"}, true},
		{"a.b.example.net", []string{"*.example.net"}, true},
		{"*.a.example.net", []string{"*.example.net"}, true},
		{"*.EXAMPLE.net.", []string{"*.example.net"}, true},
		{"*.net", []string{"*.example.net"}, false},
		{"example.net", []string{"*.example.net"}, false},
		{"*", []string{"*.example.net"}, false},
		{"*.example.net", []string{"play.example.net"}, false},
		{"Play.Example.Net", []string{"play.example.net"}, true},
		{"*.net", []string{"*.example.net", "*"}, true},
		{"other.example.org", []string{"play.example.net", "*.example.net"}, false},
	} {
		if got := Takes(tc.claim, tc.held); got != tc.want {
			t.Errorf("Takes(%q, %q) = %v, want %v", tc.claim, tc.held, got, tc.want)
		}
	}
}

// Takes and the Router agree: where Takes says a second route takes a host of the first, some
// host the first matches goes to the second (or to the first, on a tie); where it says no,
// every host the first matches of those tried stays with the first.
func TestTakesAgreesWithTheRouter(t *testing.T) {
	hosts := []string{"play.example.net", "a.b.example.net", "x.example.net", "example.net", "x.net", "other.org"}
	patterns := []string{"*", "*.net", "*.example.net", "*.b.example.net", "play.example.net", "example.net", "x.net"}
	for _, held := range patterns {
		for _, claim := range patterns {
			router, err := NewRouter([]Route{
				{Name: "first", Hosts: []string{held}, Backends: testBackends},
				{Name: "second", Hosts: []string{claim}, Backends: testBackends},
			})
			if err != nil {
				t.Fatal(err)
			}
			taken := false
			for _, h := range hosts {
				first := hostScore([]string{held}, h)
				second := hostScore([]string{claim}, h)
				if r, ok := router.Match(h, ""); ok && first >= 0 && (r.Name == "second" || second == first) {
					taken = true
				}
			}
			if taken && !Takes(claim, []string{held}) {
				t.Errorf("the Router gives %q a host of %q, Takes says no", claim, held)
			}
		}
	}
}

// Covers says whether one pattern matches every host another does.
func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		allowed, claim string
		want           bool
	}{
		{"*", "*", true},
		{"*", "play.example.net", true},
		{"*.example.net", "play.example.net", true},
		{"*.example.net", "*.a.example.net", true},
		{"*.example.net", "*.example.net", true},
		{"*.example.net", "example.net", false},
		{"*.example.net", "*.net", false},
		{"*.example.net", "*", false},
		{"play.example.net", "play.example.net", true},
		{"play.example.net", "*.play.example.net", false},
	} {
		if got := Covers(tc.allowed, tc.claim); got != tc.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tc.allowed, tc.claim, got, tc.want)
		}
	}
}

// SameHost compares as Match does: case and a trailing dot aside.
func TestSameHost(t *testing.T) {
	if !SameHost("Play.Example.NET.", "play.example.net") || !SameHost("*.A.net", "*.a.net.") || SameHost("a.net", "*.a.net") {
		t.Error("SameHost does not compare as the Router does")
	}
}
