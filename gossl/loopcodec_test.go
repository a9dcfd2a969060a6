package gossl

import (
	"errors"
	"testing"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// TestDetachRefusesCryptoTLS: a crypto/tls session cannot leave its goroutine; in the pure-Go
// build the answer says that the boringssl build is needed. The connection stays usable.
func TestDetachRefusesCryptoTLS(t *testing.T) {
	want := ErrDetachNeedsBoring
	if boring.Enabled {
		want = ErrNotBoring
	}
	sc, _, send := establishedSession(t, GoProvider())
	raw, plaintext, codec, err := DetachBoring(sc)
	if !errors.Is(err, want) || raw != nil || plaintext != nil || codec != nil {
		t.Fatalf("DetachBoring: %v, %v, %q, %v; want only the error %q", raw, plaintext, codec, err, want)
	}
	if err := send([]byte("still here")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if n, err := sc.Read(buf); err != nil || string(buf[:n]) != "still here" {
		t.Fatalf("read after a refused detach: %q, %v", buf[:n], err)
	}
}
