package gossl

import (
	"crypto/tls"
	"crypto/x509"
	"os"

	"github.com/rs/zerolog"
)

// ClientConfig is the client side of the bridge and the benchmark (crypto/tls is enough there).
type ClientConfig struct {
	CAFile     string // PEM roots to verify the server against; empty means the system roots
	Insecure   bool   // skip verification: tests only, and it says so in the log
	ServerName string // SNI and the name verified, separate from the dial address (a CDN edge)
	MinVersion string // "1.2" (default) or "1.3"
	Logger     zerolog.Logger
}

// ClientTLSConfig builds the *tls.Config for dialing wss.
func ClientTLSConfig(cfg ClientConfig) (*tls.Config, error) {
	minVersion, err := parseMinVersion(cfg.MinVersion)
	if err != nil {
		return nil, err
	}
	tc := &tls.Config{MinVersion: minVersion, ServerName: cfg.ServerName, NextProtos: alpnProtocols}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, &TLSError{Op: "config", Reason: err.Error(), Err: err}
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &TLSError{Op: "config", Reason: cfg.CAFile + " holds no PEM certificate"}
		}
	}
	if cfg.Insecure {
		cfg.Logger.Warn().Str("server_name", cfg.ServerName).
			Msg("TLS verification is OFF (insecure): anyone on the path can read and change this traffic; tests only")
		tc.InsecureSkipVerify = true
	}
	return tc, nil
}
