package main

import (
	"flag"
	"fmt"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// serveFlags are the quick-start flags; each one that is given overrides the config file.
type serveFlags struct {
	configFile  string
	listen      string
	backend     string
	tlsCert     string
	tlsKey      string
	tlsProvider string
	wsPath      string
	admin       string
	logLevel    string
	logFormat   string
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.configFile, "config", "", "YAML config `file` (see moonbridge.example.yml); embedded defaults when empty")
	fs.StringVar(&f.listen, "listen", "", "serve Minecraft, ws and wss on this `ADDR` (replaces the configured listeners)")
	fs.StringVar(&f.backend, "backend", "", "send every player to this `HOST:PORT` (replaces the configured routes)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate chain `file` for wss (default: a throwaway self-signed one)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key `file` for --tls-cert")
	fs.StringVar(&f.tlsProvider, "tls-provider", "", "TLS provider: auto, boringssl or go (default auto)")
	fs.StringVar(&f.wsPath, "ws-path", "", "WebSocket `path` (default /mc)")
	fs.StringVar(&f.admin, "admin", "", "metrics and health endpoint `ADDR` (default off)")
	fs.StringVar(&f.logLevel, "log-level", "", "trace, debug, info, warn or error (default info)")
	fs.StringVar(&f.logFormat, "log-format", "", "auto, console or json (default auto: console on a terminal)")
}

// effectiveConfig loads the file (or the embedded defaults) and applies the flags given.
func (f *serveFlags) effectiveConfig() (config.Config, error) {
	cfg := config.Default()
	if f.configFile != "" {
		loaded, err := config.Load(f.configFile)
		if err != nil {
			return config.Config{}, err
		}
		cfg = loaded
	}
	if f.listen != "" {
		cfg.Listeners = []config.Listener{{
			Listen:    f.listen,
			Protocols: []string{config.ProtocolMinecraft, config.ProtocolWS, config.ProtocolWSS},
		}}
	}
	if f.backend != "" {
		cfg.Routes = []config.Route{{Hosts: []string{"*"}, Backends: []string{f.backend}}}
	}
	override(&cfg.TLS.Cert, f.tlsCert)
	override(&cfg.TLS.Key, f.tlsKey)
	override(&cfg.TLS.Provider, f.tlsProvider)
	override(&cfg.WebSocket.Path, f.wsPath)
	override(&cfg.Admin.Listen, f.admin)
	override(&cfg.Log.Level, f.logLevel)
	override(&cfg.Log.Format, f.logFormat)
	if err := cfg.Validate(); err != nil {
		return config.Config{}, fmt.Errorf("invalid configuration:\n%w", err)
	}
	return cfg, nil
}

func override(dst *string, flagValue string) {
	if flagValue != "" {
		*dst = flagValue
	}
}
