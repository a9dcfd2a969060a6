package routes

import "time"

// A route's keys beyond hosts and backends: what its server-list pings get (fallback,
// last_known), how it balances (balance), backends named by the wildcard's capture (${1}), and
// waking its sleeping server (wake).

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

// CaptureVar in a backend's host stands for the part of the player's host a wildcard matched.
const CaptureVar = "${1}"

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
