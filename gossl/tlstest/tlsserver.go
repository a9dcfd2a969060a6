// Package tlstest starts gossl servers for tests of the packages above gossl (gossl's own tests
// cannot import it: it imports gossl).
package tlstest

import (
	"fmt"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/gossl"
)

// NoProviderError wraps gossl.Select's error when this build lacks the provider, for the caller
// to skip with.
type NoProviderError struct{ Err error }

func (e NoProviderError) Error() string { return e.Err.Error() }

// TLSServer starts a gossl server of the named provider ("go" or "boringssl") with a throwaway
// certificate for 127.0.0.1, localhost and example.com, closed when the test ends. It returns
// the certificate for clients to trust, or NoProviderError when the build lacks the provider.
func TLSServer(t testing.TB, provider string) (*gossl.Server, gossl.PEMPair, error) {
	t.Helper()
	p, _, err := gossl.Select(provider)
	if err != nil {
		return nil, gossl.PEMPair{}, NoProviderError{Err: fmt.Errorf("TLS provider %s: %w", provider, err)}
	}
	pair, err := gossl.SelfSigned([]string{"127.0.0.1", "localhost", "example.com"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := p.NewServer(gossl.ServerConfig{Certificates: []gossl.CertSource{{PEM: pair}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, pair, nil
}
