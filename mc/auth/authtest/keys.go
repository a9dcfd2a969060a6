package authtest

import (
	"sync"
	"testing"

	"github.com/moonbridge/moonbridge/mc/auth"
)

var (
	keysOnce sync.Once
	keys     *auth.Keys
	keysErr  error
)

// Keys is one RSA login key for a test binary: making one costs tens of milliseconds.
func Keys(t testing.TB) *auth.Keys {
	keysOnce.Do(func() { keys, keysErr = auth.NewKeys() })
	if keysErr != nil {
		t.Fatal(keysErr)
	}
	return keys
}
