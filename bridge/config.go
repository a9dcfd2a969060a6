package bridge

import (
	"fmt"
	"net/url"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// Config is everything a Bridge needs; cmd/moonbridge builds it from flags and the config file.
type Config struct {
	// Listen is the local address the game connects to, e.g. 127.0.0.1:25565.
	Listen string
	// Remote is the WebSocket to open per game connection: URL, the dial address (--connect),
	// TLS name, Host header, extra headers (a token) and TLS settings. Remote.Conn configures
	// each connection; start it from ws.DefaultConfig() to keep the keepalive a CDN needs.
	// Remote.RawStream offers the raw stream (ws.RawStreamProtocol); Remote.EarlyData is the
	// session's own (EarlyData).
	Remote ws.DialConfig
	// EarlyData puts the game's first bytes (its handshake and Login Start or status request)
	// in each upgrade request, for a server whose listener takes them (ws.EarlyDataProtocol):
	// it routes and dials the Minecraft server while its answer travels back. The bridge waits
	// up to 100 ms after the handshake for the packet behind it (nextPacketWait). A server that
	// does not take them gets them after the upgrade, as without the setting.
	EarlyData bool
	// HelloTimeout bounds how long the game may take to send its first packet, and how long
	// answering it with a failure may take. Zero means DefaultHelloTimeout.
	HelloTimeout time.Duration
	// MaxHandshake bounds the handshake body; zero means mc.DefaultMaxHandshakeFrame.
	MaxHandshake int
	// SettingNames names the settings a failure's summary points to (the certificate checks) as
	// the reader changes them; nil names their keys.
	SettingNames SettingNames
	Logger       zerolog.Logger
}

// DefaultHelloTimeout is HelloTimeout's default: a game sends its handshake at once.
const DefaultHelloTimeout = 10 * time.Second

// ConfigError is a setting the bridge cannot work with.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string { return "bridge: " + e.Field + ": " + e.Reason }

// withDefaults checks c and fills the zero fields that have defaults.
func (c Config) withDefaults() (Config, error) {
	if c.Listen == "" {
		return c, &ConfigError{Field: "listen", Reason: "empty"}
	}
	if err := checkURL(c.Remote.URL); err != nil {
		return c, err
	}
	if c.HelloTimeout <= 0 {
		c.HelloTimeout = DefaultHelloTimeout
	}
	if c.MaxHandshake <= 0 {
		c.MaxHandshake = mc.DefaultMaxHandshakeFrame
	}
	return c, nil
}

// checkURL refuses what ws.Dial would refuse for every session, once, at startup.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return &ConfigError{Field: "url", Reason: "empty; want ws://HOST[:PORT]/PATH or wss://..."}
	case err != nil:
		return &ConfigError{Field: "url", Reason: err.Error()}
	case u.Scheme != "ws" && u.Scheme != "wss":
		return &ConfigError{Field: "url", Reason: fmt.Sprintf("scheme %q is not ws or wss", u.Scheme)}
	case u.Hostname() == "":
		return &ConfigError{Field: "url", Reason: "no host"}
	}
	return nil
}
