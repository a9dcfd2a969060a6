// Package routes is the route as the config file, the routes API and the discovery sources
// write it: one type, with its yaml keys and its defaults, whatever its origin.
// cmd/internal/config checks it (with the file's key names and lines, and what a source other
// than the file may name); cmd/internal/routebook makes the relay's runtime route of it
// (relay.Route) and decides which routes are served.
package routes

import (
	"time"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay"
)

// Route sends clients whose handshake host matches Hosts to the first reachable backend.
type Route struct {
	// Name labels the route in metrics and logs; empty: its first host, followed by its first
	// path if it has paths ("*", "play.example.net", "*/creative"). Labels must differ.
	Name     string   `yaml:"name"`
	Hosts    []string `yaml:"hosts"` // exact names or *.example.net; "*" is the default route
	Paths    []string `yaml:"paths"` // WebSocket paths this route is limited to; empty: any
	Backends []string `yaml:"backends"`
	// SendProxy sends the backends a PROXY header (v1 or v2) with the real client address.
	SendProxy   relay.SendProxy `yaml:"send_proxy" was:"proxy_protocol"`
	RewriteHost string          `yaml:"rewrite_host"` // replaces the handshake host sent to the backend
	// MaxConnections bounds this route's sessions; 0: only the global limits.
	MaxConnections int `yaml:"max_connections"`
	// MaxPlayers bounds this route's players; a login past it is told memory.full_message, and
	// the server list shows it with the proxy's count of players on the route. 0: none.
	MaxPlayers int `yaml:"max_players"`
	// HealthCheck checks the backends; one that fails is skipped while another one is up.
	HealthCheck HealthCheck `yaml:"health_check"`
	// Access: a token (WebSocket clients only) and address lists (every client).
	Access Access `yaml:"access"`
	// Countries: who may use the route by the country a trusted proxy's country_header says.
	Countries Countries `yaml:"countries"`
	// StatusCache answers server-list pings from a live answer at most this old; 0: each ping
	// goes to a backend.
	StatusCache time.Duration `yaml:"status_cache"`
	// Fallback is what pings get while no backend answers: fixed (the fallback section) or
	// last_known (the last live answer, marked as LastKnown says; then fixed).
	Fallback  string    `yaml:"fallback"`
	LastKnown LastKnown `yaml:"last_known"`
	// Status is what the route's server-list entry shows in place of the backend's (status.go).
	Status Status `yaml:"status"`
	// Balance orders the backends for each session: failover, round-robin, random or
	// least-connections.
	Balance string `yaml:"balance"`
	// Wake starts the route's sleeping server for a login and stops it when idle (extras.go).
	Wake Wake `yaml:"wake"`
	// Auth: passthrough (the backend runs the login), online (the proxy does, with the session
	// server) or offline (the proxy takes the name as it is, for forwarding).
	Auth string `yaml:"auth"`
	// Forwarding tells the backend who the player is: none, bungeecord or velocity.
	Forwarding auth.Forwarding `yaml:"forwarding"`
	// VelocitySecretFile holds the secret velocity forwarding signs with (Paper's
	// velocity.secret); a trailing newline is not part of it.
	VelocitySecretFile string `yaml:"velocity_secret_file"`
}

// UnmarshalYAML starts a route from its defaults, so that keys a route leaves out (a whole
// health_check, or some of its keys) keep them.
func (r *Route) UnmarshalYAML(unmarshal func(any) error) error {
	*r = defaults()
	type plain Route // without this method, or decoding would recurse
	return unmarshal((*plain)(r))
}

// Default sends every host to backends, every other key at its default.
func Default(backends ...string) Route {
	r := defaults()
	r.Hosts, r.Backends = []string{"*"}, backends
	return r
}

// defaults are the keys a route may leave out, for Default and for every route the
// config file has: the health check, the fixed ping fallback, the backend's status, failover, no wake, everyone let
// in, auth passthrough and no forwarding.
func defaults() Route {
	return Route{HealthCheck: defaultHealthCheck(), Fallback: FallbackFixed, LastKnown: defaultLastKnown(),
		Status: defaultStatus(), Balance: BalanceFailover, Wake: defaultWake(), Access: defaultAccess(),
		Countries: Countries{Allow: []string{}, Deny: []string{}},
		Auth:      AuthPassthrough, Forwarding: auth.ForwardNone}
}

// defaultAccess lets everyone in: no token, no address list.
func defaultAccess() Access {
	return Access{Tokens: access.TokensOff, Allow: []string{}, Deny: []string{}}
}

// HealthCheck says how a route checks its backends.
type HealthCheck struct {
	Mode     string        `yaml:"mode"`     // tcp (a connect), status (a server-list ping), off
	Interval time.Duration `yaml:"interval"` // from one check to the next
	Timeout  time.Duration `yaml:"timeout"`  // for one check
	Rise     int           `yaml:"rise"`     // passed checks in a row that bring a backend back
	Fall     int           `yaml:"fall"`     // failed checks in a row that take it out
}

// Health check modes.
const (
	HealthTCP    = "tcp"
	HealthStatus = "status"
	HealthOff    = "off"
)

// defaultHealthCheck is a TCP connect every 10 s: it costs a backend one accepted and closed
// connection, sends no byte (so no PROXY header is needed and servers log nothing), and takes a
// dead or hung backend out within 30 s.
func defaultHealthCheck() HealthCheck {
	return HealthCheck{Mode: HealthTCP, Interval: 10 * time.Second, Timeout: 2 * time.Second, Rise: 2, Fall: 3}
}

// Label is the route's name in metrics: its name, or its first host and first path.
func (r Route) Label() string { return relay.Label(r.Name, r.Hosts, r.Paths) }

// Route auth modes.
const (
	AuthPassthrough = "passthrough"
	AuthOnline      = "online"
	AuthOffline     = "offline"
)

// Access says who may use a route.
type Access struct {
	Tokens access.Mode `yaml:"tokens"` // off, optional, required
	Allow  []string    `yaml:"allow"`  // CIDRs; empty: every address
	Deny   []string    `yaml:"deny"`   // CIDRs; win over allow
}

// Countries says which countries may use a route: ISO 3166-1 alpha-2 codes in any case, XX for
// a client with no believed country, T1 for Tor (relay.Countries).
type Countries struct {
	Allow []string `yaml:"allow"` // empty: every country, unknown included
	Deny  []string `yaml:"deny"`  // win over allow
}
