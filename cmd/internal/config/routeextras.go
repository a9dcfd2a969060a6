package config

import (
	"fmt"
	"net"
	"strings"
)

// A route's keys beyond hosts and backends: what its server-list pings get (status_cache,
// fallback, last_known), how it balances (balance), and backends named by the wildcard's
// capture (${1}).

// Route fallback names.
const (
	FallbackFixed     = "fixed"
	FallbackLastKnown = "last_known"
)

// LastKnown marks the last live status answer as offline while no backend answers; an empty
// key leaves that part as the server sent it.
type LastKnown struct {
	MOTDPrefix string `yaml:"motd_prefix"` // goes before the server's MOTD
	// VersionName replaces the server's version; clients then show it, in red, in place of the
	// player count.
	VersionName string `yaml:"version_name"`
}

func defaultLastKnown() LastKnown {
	return LastKnown{MOTDPrefix: "§c[offline] §r", VersionName: "§cOffline"}
}

// Balance names.
const (
	BalanceFailover         = "failover"
	BalanceRoundRobin       = "round-robin"
	BalanceRandom           = "random"
	BalanceLeastConnections = "least-connections"
)

func (r Route) validateExtras(key string) []error {
	errs := []error{
		oneOf(key+".fallback", r.Fallback, FallbackFixed, FallbackLastKnown),
		oneOf(key+".balance", r.Balance, BalanceFailover, BalanceRoundRobin, BalanceRandom, BalanceLeastConnections),
	}
	errs = append(errs, r.validateCapture(key)...)
	if r.StatusCache < 0 {
		errs = append(errs, invalid(key+".status_cache", "must be 0 (off) or a positive duration such as 5s"))
	}
	return errs
}

// CaptureVar in a backend's host stands for the part of the player's host a wildcard matched.
const CaptureVar = "${1}"

// validateCapture checks a route whose backends use the capture: wildcard hosts only, and the
// capture once, in the host part.
func (r Route) validateCapture(key string) []error {
	var errs []error
	uses := false
	for j, b := range r.Backends {
		if !strings.Contains(b, CaptureVar) {
			continue
		}
		uses = true
		host, port, err := net.SplitHostPort(b)
		if err == nil && (strings.Contains(port, CaptureVar) || strings.Count(host, CaptureVar) > 1) {
			errs = append(errs, invalid(fmt.Sprintf("%s.backends[%d]", key, j), "%s may stand once, in the host", CaptureVar))
		}
	}
	for j, h := range r.Hosts {
		if uses && !strings.HasPrefix(h, "*.") {
			errs = append(errs, invalid(fmt.Sprintf("%s.hosts[%d]", key, j), "%q: backends that use %s need wildcard hosts *.domain only", h, CaptureVar))
		}
	}
	return errs
}
