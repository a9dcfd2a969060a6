package gossl

import (
	"fmt"
	"strings"

	"github.com/rs/zerolog"
)

// Provider makes TLS servers with one implementation: "boringssl" or "go".
type Provider interface {
	Name() string
	NewServer(cfg ServerConfig) (*Server, error)
}

type provider struct {
	name       string
	newBackend func(minVersion uint16, cfg ServerConfig) backend
}

func (p provider) Name() string { return p.name }

func (p provider) NewServer(cfg ServerConfig) (*Server, error) {
	return newServer(cfg, p.name, p.newBackend)
}

// GoProvider is crypto/tls, in every build.
func GoProvider() Provider { return provider{name: "go", newBackend: newGoBackend} }

// Select picks the provider for tls.provider = "auto", "boringssl" or "go" and says why.
// "boringssl" runs BoringSSL's self-test (a loopback handshake and a record each way) and fails
// in a pure-Go build or when the self-test fails. This is the one place that branches on the
// backend.
//
// auto means Go for now, as the decision records say: BoringSSL never cut moonbridge's proxy CPU
// per frame on modded wss by the 20% the rule asks at both windows, and once the go provider
// stopped writing one batch per TLS record the two measured alike (BoringSSL/Go 0.99 at window
// 1, 1.035 at window 8: bench/results/2026-11-29-wss-boringssl-open-path.md).
func Select(name string) (p Provider, reason string, err error) {
	switch name {
	case "go":
		return GoProvider(), "tls.provider is go", nil
	case "boringssl":
		if p, err = testedBoring(); err != nil {
			return nil, "", err
		}
		return p, "tls.provider is boringssl", nil
	case "auto", "":
		return GoProvider(), autoReason, nil
	}
	return nil, "", &TLSError{Op: "config", Reason: fmt.Sprintf("tls.provider %q is not auto, boringssl or go", name)}
}

// autoReason is what the startup line says when auto picked Go.
const autoReason = "auto prefers Go: BoringSSL did not save the 20% CPU per frame its rule asks " +
	"(bench/results/2026-11-29-wss-boringssl-open-path.md); set tls.provider: boringssl to use it"

func testedBoring() (Provider, error) {
	p, err := boringProvider()
	if err != nil {
		return nil, err
	}
	if err := selfTest(p); err != nil {
		return nil, fmt.Errorf("BoringSSL self-test failed: %w", err)
	}
	return p, nil
}

// ListeningMessage is the startup line of a wss listener, in the seeds' words:
// "Listening for WebSocket (TLS via BORINGSSL)" or "(TLS via GO)".
func ListeningMessage(p Provider) string {
	return "Listening for WebSocket (TLS via " + strings.ToUpper(p.Name()) + ")"
}

// LogListening logs the startup line with the address and Select's reason (which says when
// auto fell back, and why).
func LogListening(log zerolog.Logger, addr string, p Provider, reason string) {
	log.Info().Str("addr", addr).Str("tls_provider", p.Name()).Str("reason", reason).Msg(ListeningMessage(p))
}
