package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/routes"
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
	fs.StringVar(&f.admin, "admin", "", "admin endpoint `ADDR`: metrics, health, block list, transfers, dashboard (default off; off loopback it needs admin.token_file)")
	fs.StringVar(&f.memProfile, "memory-profile", "", "memory profile: throughput (default: buffers stay pooled) or low (small pools, memory given back after bursts and when idle)")
}

// effectiveConfig loads the file (or the embedded defaults) and applies the flags given.
func (f *serveFlags) effectiveConfig() (config.Config, error) {
	cfg, keys, err := f.load()
	if err != nil {
		return config.Config{}, err
	}
	if f.listen != "" {
		cfg.Listeners = []relay.Listener{{Protocols: []relay.Protocol{relay.Minecraft, relay.WS, relay.WSS}}}
		keys.set(&cfg.Listeners[0].Addr, f.listen, "listeners[0].listen", "--listen")
	}
	if f.backend != "" {
		cfg.Routes = []config.Route{routes.Default(f.backend)}
		keys["routes[0].backends[0]"] = "--backend"
	}
	keys.set(&cfg.TLS.Cert, f.tlsCert, "tls.cert", "--tls-cert")
	keys.set(&cfg.TLS.Key, f.tlsKey, "tls.key", "--tls-key")
	keys.set(&cfg.TLS.Provider, f.tlsProvider, "tls.provider", "--tls-provider")
	keys.set(&cfg.TLS.RecordLayer, f.tlsRecords, "tls.record_layer", "--tls-record-layer")
	keys.set(&cfg.WebSocket.Path, f.wsPath, "websocket.path", "--ws-path")
	keys.set(&cfg.Admin.Listen, f.admin, "admin.listen", "--admin")
	profileErr := overrideText(&cfg.Memory.Profile, "memory.profile", f.memProfile)
	if f.memProfile != "" {
		keys["memory.profile"] = "--memory-profile"
	}
	if err := errors.Join(keys.rename(profileErr), keys.validate(cfg)); err != nil {
		return config.Config{}, fmt.Errorf("invalid configuration:\n%w", err)
	}
	return cfg, nil
}
