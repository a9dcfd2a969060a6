package main

import (
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/gossl"
)

// selfSignedLifetime is long enough for a test server and short enough not to be mistaken for a
// real certificate.
const selfSignedLifetime = 30 * 24 * time.Hour

// certificates reads the configured PEM pairs, or makes a throwaway self-signed one (with a
// warning) when none is configured, so that wss works out of the box.
func certificates(tlsCfg config.TLS, log zerolog.Logger) ([]gossl.PEMPair, error) {
	if tlsCfg.Cert == "" {
		pair, err := gossl.SelfSigned([]string{"localhost", "127.0.0.1", "::1"}, selfSignedLifetime)
		if err != nil {
			return nil, err
		}
		log.Warn().Msg("no tls.cert configured: wss uses a throwaway self-signed ECDSA P-256 certificate; clients must not verify it (set --tls-cert/--tls-key for production)")
		return []gossl.PEMPair{pair}, nil
	}
	files := append([]config.Certificate{{Cert: tlsCfg.Cert, Key: tlsCfg.Key}}, tlsCfg.Extra...)
	pairs := make([]gossl.PEMPair, 0, len(files))
	for _, f := range files {
		certPEM, err := os.ReadFile(f.Cert)
		if err != nil {
			return nil, fmt.Errorf("tls certificate: %w", err)
		}
		keyPEM, err := os.ReadFile(f.Key)
		if err != nil {
			return nil, fmt.Errorf("tls key: %w", err)
		}
		pairs = append(pairs, gossl.PEMPair{CertPEM: certPEM, KeyPEM: keyPEM})
	}
	return pairs, nil
}
