package config

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"time"
)

// A route's keys beyond hosts and backends: what its server-list pings get (status_cache,
// fallback, last_known), how it balances (balance), backends named by the wildcard's capture
// (${1}), and waking its sleeping server (wake).

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
	errs = append(errs, r.validateWake(key)...)
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

// Wake starts a route's sleeping server when a login finds no backend, and stops it when idle.
// It is on when Command, Webhook or Container is set.
type Wake struct {
	Command []string `yaml:"command"` // must return once the server is launched
	Webhook string   `yaml:"webhook"` // POSTed {"action":"start"|"stop","route"} instead
	// Container is started and stopped instead, through discovery.docker.endpoint's engine.
	Container     string        `yaml:"container"`
	ReadyTimeout  time.Duration `yaml:"ready_timeout"`   // for the server to accept connections
	StopAfterIdle time.Duration `yaml:"stop_after_idle"` // 0: never stop it
	StopCommand   []string      `yaml:"stop_command"`
	Hold          bool          `yaml:"hold"` // hold logins until the server is up; false: disconnect them
	StartingMOTD  string        `yaml:"starting_motd"`
	// StartingMessage disconnects a login without hold, or when the server did not come up.
	StartingMessage string `yaml:"starting_message"`
}

// On says whether the route wakes a server.
func (w Wake) On() bool { return len(w.Command) > 0 || w.Webhook != "" || w.Container != "" }

func defaultWake() Wake {
	return Wake{Command: []string{}, StopCommand: []string{}, ReadyTimeout: 3 * time.Minute, Hold: true,
		StartingMOTD:    "§eThe server is starting, please wait",
		StartingMessage: "The server is starting; join again in a minute."}
}

func (r Route) validateWake(key string) []error {
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
		if strings.Contains(b, CaptureVar) {
			errs = append(errs, invalid(key, "a route whose backends use %s cannot wake them", CaptureVar))
			break
		}
	}
	return errs
}
