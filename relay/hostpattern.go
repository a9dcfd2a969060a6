package relay

import (
	"errors"
	"fmt"
	"strings"
)

// Host patterns as routes name them, and the questions the route book asks of the Router's
// matching (Takes, Covers), answered with that matching itself (hostScore), so that who serves
// a host has one answer.

// MaxHostLength is the longest name DNS carries, without its trailing dot.
const MaxHostLength = 253

// ErrHostPattern is what CheckHostPattern's errors wrap.
var ErrHostPattern = errors.New(`want a name, *.domain or "*"`)

// CheckHostPattern says why pattern is not a route's host pattern, or nil: an exact name
// (play.example.net, 10.0.0.5), a wildcard "*." followed by a name, or "*". A name is at most
// MaxHostLength bytes of dot-separated labels of 1 to 63 letters, digits and hyphens, neither
// first nor last in a label; one trailing dot is allowed, as DNS writes a full name.
func CheckHostPattern(pattern string) error {
	if pattern == "*" {
		return nil
	}
	name := strings.TrimSuffix(strings.TrimPrefix(pattern, "*."), ".")
	if len(name) > MaxHostLength {
		return hostError("longer than %d characters", MaxHostLength)
	}
	if name == "" {
		return hostError("empty")
	}
	for _, label := range strings.Split(name, ".") {
		if err := checkLabel(label); err != nil {
			return err
		}
	}
	return nil
}

// checkLabel says why label is not one label of a name, or nil.
func checkLabel(label string) error {
	switch {
	case label == "":
		return hostError("an empty label (two dots in a row, or a dot at an end)")
	case len(label) > 63:
		return hostError("a label longer than 63 characters")
	case label[0] == '-' || label[len(label)-1] == '-':
		return hostError("a label that starts or ends with a hyphen")
	}
	for _, c := range []byte(label) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return hostError("%q is not a letter, digit or hyphen", c)
		}
	}
	return nil
}

// hostError is ErrHostPattern with what is wrong.
func hostError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrHostPattern, fmt.Sprintf(format, args...))
}

// SameHost says whether two host patterns are one as the Router compares them: case and a
// trailing dot aside.
func SameHost(a, b string) bool { return normalHost(a) == normalHost(b) }

// Takes says whether a route with the host pattern claim, listed after a route whose patterns
// are held (on a path both take), would be sent a host that route matches: some host both
// match where claim is at least as specific as every pattern of held. Listed after it, a
// route with claim gets the host when it is more specific, or gets nothing for it when both
// are as specific: either way it takes the other's place. So for held "*.example.net", claim
// "play.example.net" and "*.a.example.net" take, "*.net" and "*" do not.
func Takes(claim string, held []string) bool {
	host := witness(claim)
	theirs := hostScore(held, host)
	return theirs >= 0 && hostScore([]string{claim}, host) >= theirs
}

// Covers says whether the host pattern allowed matches every host the pattern claim matches:
// "*.example.net" covers "play.example.net" and "*.a.example.net", not "example.net" or "*".
func Covers(allowed, claim string) bool {
	return hostScore([]string{allowed}, witness(claim)) >= 0
}

// witness is a host matched by pattern and by every pattern that matches all its hosts, and
// by no exact name a route can name: for "*.example.net" a name whose first label no host
// pattern can hold, under example.net.
func witness(pattern string) string {
	pattern = normalHost(pattern)
	const unnamed = "\x00" // no pattern CheckHostPattern takes has it
	switch {
	case pattern == "*":
		return unnamed
	case strings.HasPrefix(pattern, "*."):
		return unnamed + pattern[1:]
	}
	return pattern
}
