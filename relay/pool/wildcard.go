package pool

import (
	"fmt"
	"net"
	"strings"
)

// captureVar in a backend's host is replaced by the part of the player's host that the route's
// wildcard matched: hosts ["*.play.example.net"] and backend "${1}.servers.internal:25565" send
// survival.play.example.net to survival.servers.internal:25565.
const captureVar = "${1}"

// CaptureError is a host whose wildcard part may not name a backend: only one DNS label may,
// so that a player cannot steer the proxy to an address of their choosing.
type CaptureError struct {
	Host, Capture string
}

func (e *CaptureError) Error() string {
	return fmt.Sprintf("host %q: %q is not a single DNS label, which is all a wildcard may name a backend by", e.Host, e.Capture)
}

// templated says whether the backend's address names a capture.
func (b Backend) templated() bool { return strings.Contains(b.Addr, captureVar) }

// addrFor is the backend's address for capture.
func (b Backend) addrFor(capture string) string {
	return strings.ReplaceAll(b.Addr, captureVar, capture)
}

// captures says whether some backend of c is named by the capture.
func (c Config) captures() bool {
	for _, b := range c.Backends {
		if b.templated() {
			return true
		}
	}
	return false
}

// checkCaptures checks a route whose backends name the capture: every host is a wildcard
// "*.domain" (an exact name or "*" has no single label to capture), and the capture goes in
// the backend's host only.
func (c Config) checkCaptures() error {
	if !c.captures() {
		return nil
	}
	for _, h := range c.Hosts {
		if !strings.HasPrefix(h, "*.") {
			return fmt.Errorf("host %q: a route whose backends use %s needs wildcard hosts *.domain only", h, captureVar)
		}
	}
	for _, b := range c.Backends {
		host, port, err := net.SplitHostPort(b.Addr)
		if err != nil || strings.Contains(port, captureVar) || strings.Count(host, captureVar) > 1 {
			return fmt.Errorf("backend %q: %s may stand once in the host of HOST:PORT", b.Addr, captureVar)
		}
	}
	return nil
}

// Capture is the part of host that the route's most specific wildcard matched, when p's
// backends need it ("" otherwise), for Request.Capture. Like the relay's Router.Match, it
// ignores case and a trailing dot.
func (p *Pool) Capture(host string) (string, error) {
	if !p.cfg.captures() {
		return "", nil
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	longest := ""
	for _, pattern := range p.cfg.Hosts {
		suffix := strings.TrimSuffix(strings.ToLower(pattern), ".")[1:] // ".play.example.net"
		if strings.HasSuffix(host, suffix) && len(suffix) > len(longest) {
			longest = suffix
		}
	}
	label := strings.TrimSuffix(host, longest)
	if !isDNSLabel(label) {
		return "", &CaptureError{Host: host, Capture: label}
	}
	return label, nil
}

// isDNSLabel: 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen
// (RFC 1123); capture folded upper case away.
func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// names says whether addr is the backend's address for some capture (its own address when it
// names none).
func (b Backend) names(addr string) bool {
	before, after, templated := strings.Cut(b.Addr, captureVar)
	if !templated {
		return b.Addr == addr
	}
	return len(addr) > len(before)+len(after) && strings.HasPrefix(addr, before) && strings.HasSuffix(addr, after)
}
