package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/ws"
)

// relayConfig turns the file's settings into the relay's, selecting and starting the TLS
// provider when a listener serves wss. The returned gossl server (nil without wss) is the
// caller's to close and to reload on SIGHUP.
func relayConfig(cfg config.Config, log zerolog.Logger) (relay.Config, *gossl.Server, error) {
	out, err := relaySettings(cfg, log)
	if err != nil || !servesWSS(cfg.Listeners) {
		return out, nil, err
	}
	tlsServer, reason, err := startTLS(cfg.TLS, log)
	if err != nil {
		return relay.Config{}, nil, err
	}
	out.TLS, out.TLSReason = tlsServer, reason
	return out, tlsServer, nil
}

// relaySettings is the relay's configuration without its TLS server.
func relaySettings(cfg config.Config, log zerolog.Logger) (relay.Config, error) {
	trusted, err := clientaddr.ParseNets("trusted network", cfg.TrustedProxies)
	if err != nil {
		return relay.Config{}, fmt.Errorf("trusted_proxies: %w", err)
	}
	fallback, err := relayFallback(cfg.Fallback)
	if err != nil {
		return relay.Config{}, err
	}
	memory, err := relayMemory(cfg.Memory)
	if err != nil {
		return relay.Config{}, err
	}
	transfer, err := relayTransfer(cfg.Shutdown)
	if err != nil {
		return relay.Config{}, err
	}
	routes, err := routebook.FileRoutes(cfg, transfer.Cookies, log)
	if err != nil {
		return relay.Config{}, err
	}
	tokens, err := tokenVerifier(cfg.Access)
	if err != nil {
		return relay.Config{}, err
	}
	return relay.Config{
		Listeners:       cfg.Listeners,
		Routes:          routes,
		Tokens:          tokens,
		TokenInQuery:    cfg.Access.QueryToken,
		WebSocket:       wsConfig(cfg.WebSocket, log),
		Limits:          cfg.Limits,
		Defence:         cfg.Defence,
		Memory:          memory,
		TrustedProxies:  trusted,
		ClientIPHeaders: cfg.ClientIPHeaders,
		CountryHeader:   cfg.CountryHeader,
		ForwardSecret:   clientaddr.ForwardSecret{Header: cfg.ForwardSecret.Header, Value: string(cfg.ForwardSecret.Value)},
		LoginMeter:      cfg.Login.Meter,
		LoginWebhook:    cfg.LoginWebhook,
		LandingPage:     cfg.LandingPage,
		Fallback:        fallback,
		RestartingMOTD:  cfg.Shutdown.MOTD,
		Transfer:        transfer,
		DataPathConfig:  cfg.Relay,
		Logger:          log,
	}, nil
}

func servesWSS(listeners []relay.Listener) bool {
	return slices.ContainsFunc(listeners, func(l relay.Listener) bool { return slices.Contains(l.Protocols, relay.WSS) })
}

// startTLS selects the provider (auto, boringssl, go) and builds its server.
func startTLS(tlsCfg config.TLS, log zerolog.Logger) (*gossl.Server, string, error) {
	provider, reason, err := gossl.Select(tlsCfg.Provider)
	if err != nil {
		return nil, "", fmt.Errorf("tls.provider %s: %w", tlsCfg.Provider, err)
	}
	warnOnFallback(log, tlsCfg.Provider, buildinfo.Flavour() == "boringssl", provider, reason)
	sources, err := certSources(tlsCfg, log)
	if err != nil {
		return nil, "", err
	}
	serverCfg := gossl.ServerConfig{Certificates: sources, MinVersion: tlsCfg.MinVersion,
		RecordLayer: gossl.RecordLayer(tlsCfg.RecordLayer), Logger: log}
	if path := os.Getenv("SSLKEYLOGFILE"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, "", fmt.Errorf("SSLKEYLOGFILE: %w", err)
		}
		serverCfg.KeyLog = f
	}
	server, err := provider.NewServer(serverCfg)
	if err != nil {
		return nil, "", fmt.Errorf("tls: %w", err)
	}
	return server, reason, nil
}

// warnOnFallback says loudly when a build with BoringSSL serves wss with crypto/tls because
// BoringSSL failed its startup self-test (auto fell back): the listener line says it too, but
// at info level, among others.
func warnOnFallback(log zerolog.Logger, requested string, boringCompiled bool, provider gossl.Provider, reason string) {
	if boringCompiled && provider.Name() == gossl.ProviderGo && (requested == gossl.ProviderAuto || requested == "") {
		log.Warn().Str("reason", reason).Msg("BoringSSL is compiled in but did not pass its self-test: wss runs on crypto/tls")
	}
}

// selfSignedLifetime is long enough for a test server and short enough not to be mistaken for a
// real certificate.
const selfSignedLifetime = 30 * 24 * time.Hour

// certSources names the configured PEM files (watched and reloaded by gossl), or makes a
// throwaway self-signed certificate, with a warning, when none is configured.
func certSources(tlsCfg config.TLS, log zerolog.Logger) ([]gossl.CertSource, error) {
	if tlsCfg.Cert == "" {
		pair, err := gossl.SelfSigned([]string{"localhost", "127.0.0.1", "::1"}, selfSignedLifetime)
		if err != nil {
			return nil, err
		}
		log.Warn().Msg("no tls.cert configured: wss uses a throwaway self-signed ECDSA P-256 certificate; clients must not verify it (set --tls-cert/--tls-key for production)")
		return []gossl.CertSource{{PEM: pair}}, nil
	}
	sources := []gossl.CertSource{{CertFile: tlsCfg.Cert, KeyFile: tlsCfg.Key}}
	for _, extra := range tlsCfg.Extra {
		sources = append(sources, gossl.CertSource{CertFile: extra.Cert, KeyFile: extra.Key})
	}
	return sources, nil
}

func wsConfig(w config.WebSocket, log zerolog.Logger) ws.ServerConfig {
	conn := ws.DefaultConfig()
	conn.MaxMessageSize = int64(w.MaxMessage)
	conn.PingInterval = w.Keepalive
	conn.DeadPeerIntervals = w.DeadAfter
	conn.Logger = log
	return ws.ServerConfig{
		Path:              w.Path,
		AllowedOrigins:    []string{"*"},
		ReadHeaderTimeout: w.HeaderTimeout,
		MaxHeaderBytes:    int(w.MaxHeaderSize),
		Subprotocols:      w.Subprotocols,
		Conn:              conn,
		Logger:            log,
	}
}

func relayFallback(f config.Fallback) (mc.Answer, error) {
	out := mc.Answer{
		Status:     mc.Status{VersionName: f.VersionName, MaxPlayers: f.MaxPlayers, MOTD: f.MOTD},
		Disconnect: f.Disconnect,
	}
	if f.Favicon != "" {
		var err error
		if out.Status.Favicon, err = config.ReadIcon(f.Favicon); err != nil {
			return mc.Answer{}, fmt.Errorf("fallback.favicon: %w", err)
		}
	}
	return out, nil
}
