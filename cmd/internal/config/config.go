// Package config is moonbridge's configuration: the YAML schema, its embedded defaults, strict
// loading with ${NAME} / ${NAME:default} environment placeholders, and validation. Only cmd/
// uses it. A section the packages that do the work take as it is (relay.Limits, relay.Defence,
// relay.Listener, relay.LandingPage, relay.LoginWebhook, relay.DataPathConfig, most of
// relay.Memory) is their type, with its yaml tags and its defaults; a named value (a protocol,
// a data path, a token mode, a forwarding) is their type too and parses itself, so a wrong one
// is reported with its line as the file is read. What remains here is what the file says
// otherwise than the packages take it (paths of files to read, MiB, CIDRs as text).
package config

import (
	"time"

	"github.com/moonbridge/moonbridge/internal/bufpool"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay"

	"github.com/moonbridge/moonbridge/routes"
)

// Config is the whole file. Every key has a default (see Default and moonbridge.example.yml).
type Config struct {
	Log       Log              `yaml:"log"`
	Admin     Admin            `yaml:"admin"`
	TLS       TLS              `yaml:"tls"`
	WebSocket WebSocket        `yaml:"websocket"`
	Listeners []relay.Listener `yaml:"listeners"`
	Routes    []Route          `yaml:"routes"`
	// TrustedProxies may send PROXY headers and forwarded-for headers (CIDRs of a CDN or LB).
	TrustedProxies []string `yaml:"trusted_proxies"`
	// ClientIPHeaders are the headers a trusted proxy says the player's address in, in order of
	// precedence; X-Forwarded-For is walked from the right. Empty (the default): none, only
	// PROXY headers and the socket, since a player can send any header a proxy does not set.
	ClientIPHeaders []string `yaml:"client_ip_headers"`
	// CountryHeader is the header a trusted proxy says the player's country in, believed as
	// client_ip_headers are (and with forward_secret when it is set); "" reads none.
	CountryHeader string        `yaml:"country_header"`
	Access        Access        `yaml:"access"`
	Limits        relay.Limits  `yaml:"limits"`
	Defence       relay.Defence `yaml:"defence"`
	// BansFile holds the bans by name, UUID and address (docs/bans.md): YAML (.yaml, .yml) or
	// JSON (.json), read at start and on SIGHUP, rewritten whole by the admin API's changes;
	// "": the API's bans are kept in memory only.
	BansFile string               `yaml:"bans_file"`
	Memory   Memory               `yaml:"memory"`
	Relay    relay.DataPathConfig `yaml:"relay"`
	Fallback Fallback             `yaml:"fallback"`
	Shutdown Shutdown             `yaml:"shutdown"`
	Upgrade  Upgrade              `yaml:"upgrade"`
	Client   Client               `yaml:"client"`
	Login    Login                `yaml:"login"`

	// ForwardSecret, when its value is set, is a header without which a trusted proxy's
	// client_ip_headers are not believed (forwardsecret.go).
	ForwardSecret ForwardSecret `yaml:"forward_secret"`
	// LoginWebhook gets join and leave events (loginwebhook.go).
	LoginWebhook relay.LoginWebhook `yaml:"login_webhook"`
	// LandingPage is what browsers get from ws/wss listeners (landingpage.go).
	LandingPage relay.LandingPage `yaml:"landing_page"`
	// Discovery finds routes outside this file, validated and served as the file's are.
	Discovery Discovery `yaml:"discovery"`
	// Tracing exports traces of joins to an OpenTelemetry collector (tracing.go); off by default.
	Tracing Tracing `yaml:"tracing"`
	// Replicas shares players, blocks and rates with other instances on Redis (replicas.go).
	Replicas Replicas `yaml:"replicas"`
	// Maintenance puts routes, or every route, under maintenance (maintenance.go).
	Maintenance []MaintenanceEntry `yaml:"maintenance"`
}

// Discovery holds the sources of routes beside the file, each in its own file.
type Discovery struct {
	Docker     DiscoveryDocker `yaml:"docker"`     // discoverydocker.go
	Kubernetes KubeDiscovery   `yaml:"kubernetes"` // discoverykube.go
}

func (d Discovery) validate() []error { return append(d.Docker.validate(), d.Kubernetes.validate()...) }

// Access holds what checks the tokens of routes whose access.tokens is required or optional.
type Access struct {
	Keys     []string      `yaml:"keys"`     // public key files from `moonbridge token keygen`
	Audience string        `yaml:"audience"` // what every token's audience must be; "" for none
	Leeway   time.Duration `yaml:"leeway"`   // allowed clock difference with the issuer
	// QueryToken reads a token from the access_token query parameter too; off by default,
	// since URLs end up in logs (a CDN's, a browser's history).
	QueryToken bool `yaml:"query_token"`
	// TokenCache is how many verified tokens are remembered so that one seen again costs a hash
	// instead of a signature check; 0 remembers none.
	TokenCache int `yaml:"token_cache"`
}

// Login is what routes with auth online share: the key of the Encryption Requests and the
// session server that vouches for players.
type Login struct {
	// KeyFile is a PEM RSA private key; empty: a fresh 1024-bit key at every start and reload.
	KeyFile string `yaml:"key_file"`
	// SessionServer is the base URL hasJoined is asked under.
	SessionServer string `yaml:"session_server"`
	// SessionTimeout bounds one hasJoined request.
	SessionTimeout time.Duration `yaml:"session_timeout"`
	// PreventProxyConnections gives the session server the player's address, which then has to be
	// the one the client joined from.
	PreventProxyConnections bool `yaml:"prevent_proxy_connections"`
	// Cipher is the implementation of the player side's AES-128/CFB8: CipherAuto, CipherBoringSSL
	// or CipherGo.
	Cipher string `yaml:"cipher"`
	// Meter bounds the hasJoined requests of all online routes together (docs/defence.md).
	Meter auth.MeterSettings `yaml:"meter"`
}

func defaultLogin() Login {
	return Login{SessionServer: "https://sessionserver.mojang.com", SessionTimeout: 5 * time.Second, Cipher: CipherAuto,
		Meter: auth.DefaultMeterSettings()}
}

// login.cipher values.
const (
	CipherAuto      = "auto"
	CipherBoringSSL = "boringssl"
	CipherGo        = "go"
)

// Upgrade is what SIGUSR2 does: start the binary at the path this process was started as, hand
// it the listening sockets, and end here once the sessions that stayed have ended
// (docs/upgrade.md).
type Upgrade struct {
	// Timeout bounds the new process's start-up, from its start to its word that it serves: one
	// that is not ready by then is killed, and this process keeps serving.
	Timeout time.Duration `yaml:"timeout"`
	// Stay is how long the sessions open at the hand-over run on in this process before they are
	// drained as SIGTERM drains them (shutdown.*); 0: drain them at once.
	Stay time.Duration `yaml:"stay"`
}

// Shutdown is what SIGTERM does: stop accepting, move the players that can be moved to
// TransferTo, let the other sessions end for up to DrainTimeout, then close the rest.
type Shutdown struct {
	DrainTimeout time.Duration `yaml:"drain_timeout"` // 0: close every session at once
	// MOTD answers server-list pings that arrive during the drain, and is the Disconnect the
	// players of 1.20.5 or later still there at its end read; empty: fallback.motd.
	MOTD string `yaml:"motd"`
	// TransferTo is where a drain sends the players it can move (relay.Transfer): host:port of a
	// live instance, such as the public name of the load balancer or Service; "": nobody moves.
	TransferTo string `yaml:"transfer_to"`
	// TransferSecretFile holds the secret that signs the cookie a moved player shows the next
	// instance (it names the host the player joined at: the route it lands on there), and
	// checks those of players moved here (every instance reads the same one); "": no cookie,
	// and moved players land by TransferTo's host (Warnings says so).
	TransferSecretFile string `yaml:"transfer_secret_file"`
	// TransferCookieTTL is how long that cookie is good for (default relay.DefaultTransferCookieTTL).
	TransferCookieTTL time.Duration `yaml:"transfer_cookie_ttl"`
}

// Memory chooses the buffer pools' profile (low, throughput), the memory limit new logins are
// refused near, and what they are told (relay.Memory). The file gives the limit in MiB, or 0
// for the cgroup's limit, else half the machine's memory (cmd/moonbridge reads them).
type Memory struct {
	relay.Memory `yaml:",inline"`
	LimitMiB     int `yaml:"limit"`
}

// Fallback is what players see when no backend is reachable.
type Fallback struct {
	MOTD        string `yaml:"motd"`
	VersionName string `yaml:"version_name"`
	MaxPlayers  int    `yaml:"max_players"`
	Favicon     string `yaml:"favicon"` // a 64x64 PNG file; empty for none
	Disconnect  string `yaml:"disconnect"`
}

// defaultFallback is relay.DefaultFallback, without a favicon.
func defaultFallback() Fallback {
	d := relay.DefaultFallback()
	return Fallback{MOTD: d.Status.MOTD, VersionName: d.Status.VersionName, MaxPlayers: d.Status.MaxPlayers, Disconnect: d.Disconnect}
}

// Log chooses the log level and format.
type Log struct {
	Level  string `yaml:"level"`  // trace, debug, info, warn, error
	Format string `yaml:"format"` // auto (console on a terminal, JSON otherwise), console, json
}

// TLS configures wss listeners.
type TLS struct {
	Provider    string        `yaml:"provider"`     // auto, boringssl, go
	MinVersion  string        `yaml:"min_version"`  // "1.2" or "1.3"
	RecordLayer string        `yaml:"record_layer"` // TLS 1.3 under BoringSSL: boringssl-ssl or aead
	Cert        string        `yaml:"cert"`         // PEM chain; empty: a throwaway self-signed one
	Key         string        `yaml:"key"`          // PEM private key
	Extra       []Certificate `yaml:"certificates"`
}

// Certificate is one more certificate, chosen by SNI among Cert and the others.
type Certificate struct {
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
}

// WebSocket configures the ws and wss endpoints.
type WebSocket struct {
	Path          string        `yaml:"path"`
	Keepalive     time.Duration `yaml:"keepalive"`       // 0 disables the keepalive ping
	DeadAfter     int           `yaml:"dead_after"`      // keepalive intervals without a frame
	MaxMessage    ByteSize      `yaml:"max_message"`     // per WebSocket message
	HeaderTimeout time.Duration `yaml:"header_timeout"`  // for the HTTP upgrade request
	MaxHeaderSize ByteSize      `yaml:"max_header_size"` // of the HTTP upgrade request
	// Subprotocols a third-party client (a browser page, node's ws) may be answered with, in
	// preference order; "*" takes the first it offers (ws.AnySubprotocol). moonbridge's own
	// values are selected without being listed.
	Subprotocols []string `yaml:"subprotocols"`
}

// Route is a route of the file: the routes package's, the one type the routes API and the
// discovery sources write too; validate.go checks it with the file's key names.
type Route = routes.Route

// Default is the embedded configuration `moonbridge serve` runs with when given no file: one
// listener for Minecraft, ws and wss on 127.0.0.1:25577 in front of a server on 127.0.0.1:25565.
func Default() Config {
	return Config{
		Log:   Log{Level: "info", Format: "auto"},
		Admin: defaultAdmin(),
		TLS:   TLS{Provider: "auto", MinVersion: "1.2", RecordLayer: "boringssl-ssl"},
		WebSocket: WebSocket{
			Path:          "/mc",
			Keepalive:     30 * time.Second,
			DeadAfter:     3,
			MaxMessage:    16 << 20,
			HeaderTimeout: 10 * time.Second,
			MaxHeaderSize: 8 << 10,
			Subprotocols:  []string{},
		},
		Listeners: []relay.Listener{{
			Addr:      "127.0.0.1:25577",
			Protocols: []relay.Protocol{relay.Minecraft, relay.WS, relay.WSS},
		}},
		Routes:          []Route{routes.Default("127.0.0.1:25565")},
		TrustedProxies:  []string{},
		ClientIPHeaders: []string{},
		CountryHeader:   "CF-IPCountry",
		Access:          Access{Keys: []string{}, Leeway: time.Minute},
		ForwardSecret:   defaultForwardSecret(),
		LoginWebhook:    relay.LoginWebhook{Timeout: relay.DefaultWebhookTimeout},
		LandingPage:     relay.DefaultLandingPage(),
		Limits:          relay.DefaultLimits(),
		Defence:         relay.DefaultDefence(),
		Memory:          Memory{Memory: relay.Memory{Profile: bufpool.Throughput, FullMessage: relay.DefaultFullMessage}},
		Relay:           relay.DefaultDataPath(),
		Login:           defaultLogin(),
		Fallback:        defaultFallback(),
		Shutdown: Shutdown{
			DrainTimeout:      30 * time.Second,
			MOTD:              "§eThe server is restarting; try again in a minute",
			TransferCookieTTL: relay.DefaultTransferCookieTTL,
		},
		Upgrade:     Upgrade{Timeout: 30 * time.Second, Stay: 10 * time.Minute},
		Client:      defaultClient(),
		Discovery:   Discovery{Docker: defaultDiscoveryDocker(), Kubernetes: defaultKubeDiscovery()},
		Tracing:     defaultTracing(),
		Replicas:    defaultReplicas(),
		Maintenance: []MaintenanceEntry{},
	}
}
