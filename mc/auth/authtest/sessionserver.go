package authtest

import (
	"testing"

	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// SessionServer is authfake's, under the name the tests know.
type SessionServer = authfake.SessionServer

// NewSessionServer starts a fake session server on 127.0.0.1, closed with the test.
func NewSessionServer(t testing.TB) *SessionServer {
	s, err := authfake.ListenSessionServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
