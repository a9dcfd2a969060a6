package config

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/moonbridge/moonbridge/routes"
)

// A route's keys beyond hosts and backends: what its server-list pings get (status_cache,
// fallback, last_known, status: routestatus.go), how it balances (balance), backends named by the wildcard's capture
// (${1}), and waking its sleeping server (wake).

func validateRouteExtras(r Route, key string) []error {
	errs := []error{
		oneOf(key+".fallback", r.Fallback, routes.FallbackFixed, routes.FallbackLastKnown),
		oneOf(key+".balance", r.Balance, routes.BalanceFailover, routes.BalanceRoundRobin, routes.BalanceRandom, routes.BalanceLeastConnections),
	}
	errs = append(errs, validateCapture(r, key)...)
	errs = append(errs, validateWake(r, key)...)
	errs = append(errs, validateStatus(r.Status, key)...)
	if r.StatusCache < 0 {
		errs = append(errs, invalid(key+".status_cache", "must be 0 (off) or a positive duration such as 5s"))
	}
	return errs
}

// validateCapture checks a route whose backends use the capture: wildcard hosts only, and the
// capture once, in the host part.
func validateCapture(r Route, key string) []error {
	var errs []error
	uses := false
	for j, b := range r.Backends {
		if !strings.Contains(b, routes.CaptureVar) {
			continue
		}
		uses = true
		host, port, err := net.SplitHostPort(b)
		if err == nil && (strings.Contains(port, routes.CaptureVar) || strings.Count(host, routes.CaptureVar) > 1) {
			errs = append(errs, invalid(fmt.Sprintf("%s.backends[%d]", key, j), "%s may stand once, in the host", routes.CaptureVar))
		}
	}
	for j, h := range r.Hosts {
		if uses && !strings.HasPrefix(h, "*.") {
			errs = append(errs, invalid(fmt.Sprintf("%s.hosts[%d]", key, j), "%q: backends that use %s need wildcard hosts *.domain only", h, routes.CaptureVar))
		}
	}
	return errs
}

func validateWake(r Route, key string) []error {
	w := r.Wake
	if !w.On() {
		return nil
	}
	key += ".wake"
	var errs []error
	if ways := len(slices.DeleteFunc([]bool{len(w.Command) > 0, w.Webhook != "", w.Container != ""}, func(set bool) bool { return !set })); ways > 1 {
		errs = append(errs, invalid(key, "set one of command, webhook and container"))
	}
	if w.Container != "" && len(w.StopCommand) > 0 {
		errs = append(errs, invalid(key+".stop_command", "a container is stopped through its engine; leave stop_command empty"))
	}
	if w.Webhook != "" {
		errs = append(errs, httpURL(key+".webhook", w.Webhook))
	}
	if w.ReadyTimeout <= 0 {
		errs = append(errs, invalid(key+".ready_timeout", "must be a positive duration such as 3m"))
	}
	if w.StopAfterIdle < 0 || w.StopAfterIdle > 0 && len(w.StopCommand) == 0 && w.Webhook == "" && w.Container == "" {
		errs = append(errs, invalid(key+".stop_after_idle", "needs a stop_command (or the webhook or container), or 0 to never stop"))
	}
	for _, b := range r.Backends {
		if strings.Contains(b, routes.CaptureVar) {
			errs = append(errs, invalid(key, "a route whose backends use %s cannot wake them", routes.CaptureVar))
			break
		}
	}
	return errs
}
