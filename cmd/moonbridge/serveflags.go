package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// serveFlags are the quick-start flags; each one that is given overrides the config file.
type serveFlags struct {
	commonFlags
	listen      string
	backend     string
	tlsCert     string
	tlsKey      string
	tlsProvider string
	tlsRecords  string
	wsPath      string
	admin       string
	memProfile  string
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.commonFlags.register(fs, "YAML config `file` (see moonbridge.example.yml); embedded defaults when empty")
	fs.StringVar(&f.listen, "listen", "", "serve Minecraft, ws and wss on this `ADDR` (replaces the configured listeners)")
	fs.StringVar(&f.backend, "backend", "", "send every player to this `HOST:PORT` (replaces the configured routes)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate chain `file` for wss (default: a throwaway self-signed one)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key `file` for --tls-cert")
	fs.StringVar(&f.tlsProvider, "tls-provider", "", "TLS provider: auto, boringssl or go (default auto)")
	fs.StringVar(&f.tlsRecords, "tls-record-layer", "", "BoringSSL's TLS 1.3 record layer: boringssl-ssl or aead (default boringssl-ssl)")
	fs.StringVar(&f.wsPath, "ws-path", "", "WebSocket `path` (default /mc)")
	fs.StringVar(&f.admin, "admin", "", "metrics and health endpoint `ADDR` (default off)")
	fs.StringVar(&f.memProfile, "memory-profile", "", "memory profile: throughput (default: buffers stay pooled) or low (small pools, memory given back after bursts and when idle)")
}

// effectiveConfig loads the file (or the embedded defaults) and applies the flags given.
func (f *serveFlags) effectiveConfig() (config.Config, error) {
	cfg, err := f.load()
	if err != nil {
		return config.Config{}, err
	}
	if f.listen != "" {
		cfg.Listeners = []relay.Listener{{Addr: f.listen, Protocols: []relay.Protocol{relay.Minecraft, relay.WS, relay.WSS}}}
	}
	if f.backend != "" {
		cfg.Routes = []config.Route{config.DefaultRoute(f.backend)}
	}
	override(&cfg.TLS.Cert, f.tlsCert)
	override(&cfg.TLS.Key, f.tlsKey)
	override(&cfg.TLS.Provider, f.tlsProvider)
	override(&cfg.TLS.RecordLayer, f.tlsRecords)
	override(&cfg.WebSocket.Path, f.wsPath)
	override(&cfg.Admin.Listen, f.admin)
	err = overrideText(&cfg.Memory.Profile, "memory.profile", f.memProfile)
	if err = errors.Join(err, cfg.Validate()); err != nil {
		return config.Config{}, fmt.Errorf("invalid configuration:\n%w", err)
	}
	return cfg, nil
}
