package gossl

import (
	"errors"
	"fmt"
)

// The names of tls.provider: a provider's Name, and Select's argument.
const (
	ProviderAuto      = "auto"      // Select's choice: BoringSSL when it passes its self-test, else Go
	ProviderBoringSSL = "boringssl" // the shim over BoringSSL (the cgo build)
	ProviderGo        = "go"        // crypto/tls, in every build
)

// Provider makes TLS servers with one implementation: ProviderBoringSSL or ProviderGo.
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
func GoProvider() Provider { return provider{name: ProviderGo, newBackend: newGoBackend} }

// Select picks the provider for tls.provider (ProviderAuto, ProviderBoringSSL or ProviderGo;
// "" is auto) and says why. ProviderBoringSSL runs BoringSSL's self-test (a loopback handshake
// and a record each way) and fails in a pure-Go build or when the self-test fails. This is the
// one place that branches on a provider's name; the rest of the program asks a Server what it
// can do (CanDetach, RecordLayer).
//
// auto takes BoringSSL when it is compiled in and passes the same self-test, and Go otherwise,
// with the reason. Why BoringSSL: on wss it was never worse than crypto/tls and about a tenth
// cheaper per frame on busy and bulk traffic (bench/results/2026-11-30-tls-auto-default.md,
// which also gives the rule that decided it).
func Select(name string) (p Provider, reason string, err error) {
	switch name {
	case ProviderGo:
		return GoProvider(), "tls.provider is go", nil
	case ProviderBoringSSL:
		if p, err = testedBoring(); err != nil {
			return nil, "", err
		}
		return p, "tls.provider is boringssl", nil
	case ProviderAuto, "":
		p, reason = selectAuto(testedBoring)
		return p, reason, nil
	}
	return nil, "", &TLSError{Op: "config", Reason: fmt.Sprintf("tls.provider %q is not auto, boringssl or go", name)}
}

// selectAuto is auto's choice, with the BoringSSL provider (and its self-test) passed in so a
// test can make it fail.
func selectAuto(tested func() (Provider, error)) (Provider, string) {
	p, err := tested()
	switch {
	case err == nil:
		return p, "tls.provider auto takes BoringSSL when it is built in and passes its self-test, as here"
	case errors.Is(err, ErrBoringNotCompiled):
		return GoProvider(), "auto: this build has no BoringSSL (pure Go), so crypto/tls"
	default:
		return GoProvider(), "auto fell back to Go: " + err.Error()
	}
}

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
