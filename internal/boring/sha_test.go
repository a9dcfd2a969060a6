//go:build boringssl && cgo

package boring

import (
	"crypto/sha256"
	"testing"
)

func TestBoringSHA256MatchesGo(t *testing.T) {
	for _, input := range [][]byte{nil, []byte("abc"), make([]byte, 100_000)} {
		if got, want := SHA256(input), sha256.Sum256(input); got != want {
			t.Errorf("SHA256 of %d bytes: boring %x, Go %x", len(input), got, want)
		}
	}
}
