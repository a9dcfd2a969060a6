// Package config is moonbridge's configuration: the YAML schema, its embedded defaults, strict
// loading with ${NAME} / ${NAME:default} environment placeholders, and validation. Only cmd/
// uses it; the packages that do the work take plain settings values built from it.
package config

import (
	"time"
)

// Config is the whole file. Every key has a default (see Default and moonbridge.example.yml).
type Config struct {
	Log       Log        `yaml:"log"`
	Admin     Admin      `yaml:"admin"`
	TLS       TLS        `yaml:"tls"`
	WebSocket WebSocket  `yaml:"websocket"`
	Listeners []Listener `yaml:"listeners"`
	Routes    []Route    `yaml:"routes"`
}

// Log chooses the log level and format.
type Log struct {
	Level  string `yaml:"level"`  // trace, debug, info, warn, error
	Format string `yaml:"format"` // auto (console on a terminal, JSON otherwise), console, json
}

// Admin is the HTTP endpoint for metrics and health; empty Listen turns it off.
type Admin struct {
	Listen string `yaml:"listen"`
}

// TLS configures wss listeners.
type TLS struct {
	Provider   string        `yaml:"provider"`    // auto, boringssl, go
	MinVersion string        `yaml:"min_version"` // "1.2" or "1.3"
	Cert       string        `yaml:"cert"`        // PEM chain; empty: a throwaway self-signed one
	Key        string        `yaml:"key"`         // PEM private key
	Extra      []Certificate `yaml:"certificates"`
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
}

// Listener is one address and the protocols it serves; with several, the first bytes decide.
type Listener struct {
	Listen    string   `yaml:"listen"`
	Protocols []string `yaml:"protocols"` // minecraft, ws, wss
}

// Route sends clients whose handshake host matches Hosts to the first reachable backend.
type Route struct {
	Hosts    []string `yaml:"hosts"` // exact names or *.example.net; "*" is the default route
	Backends []string `yaml:"backends"`
}

// Protocol names a listener accepts.
const (
	ProtocolMinecraft = "minecraft"
	ProtocolWS        = "ws"
	ProtocolWSS       = "wss"
)

// Default is the embedded configuration `moonbridge serve` runs with when given no file: one
// listener for Minecraft, ws and wss on 127.0.0.1:25577 in front of a server on 127.0.0.1:25565.
func Default() Config {
	return Config{
		Log: Log{Level: "info", Format: "auto"},
		TLS: TLS{Provider: "auto", MinVersion: "1.2"},
		WebSocket: WebSocket{
			Path:          "/mc",
			Keepalive:     30 * time.Second,
			DeadAfter:     3,
			MaxMessage:    16 << 20,
			HeaderTimeout: 10 * time.Second,
			MaxHeaderSize: 8 << 10,
		},
		Listeners: []Listener{{
			Listen:    "127.0.0.1:25577",
			Protocols: []string{ProtocolMinecraft, ProtocolWS, ProtocolWSS},
		}},
		Routes: []Route{{Hosts: []string{"*"}, Backends: []string{"127.0.0.1:25565"}}},
	}
}
