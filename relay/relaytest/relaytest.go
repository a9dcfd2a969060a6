// Package relaytest starts moonbridge's relay inside a test.
package relaytest

import (
	"testing"

	"github.com/moonbridge/moonbridge/relay"
)

// Start runs a relay of cfg until the test ends and returns its first listener's address.
func Start(t testing.TB, cfg relay.Config) string {
	t.Helper()
	srv, err := relay.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Addrs()[0].String()
}
