// Package cfb8test holds the checks every AES-128/CFB8 implementation passes (mc/cfb8 in
// Go, gossl's over BoringSSL): the NIST known answers, and the same stream as a reference in
// any split of the input.
package cfb8test

import (
	"bytes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// New makes one direction of an implementation.
type New func(key, iv []byte, decrypt bool) (cipher.Stream, error)

// NIST SP 800-38A, F.3.7 and F.3.8: CFB8-AES128 encrypt and decrypt.
var (
	NISTKey    = testutil.Unhex("2b7e151628aed2a6abf7158809cf4f3c")
	NISTIV     = testutil.Unhex("000102030405060708090a0b0c0d0e0f")
	NISTPlain  = testutil.Unhex("6bc1bee22e409f96e93d7e117393172aae2d")
	NISTCipher = testutil.Unhex("3b79424c9c0dd436bace9e0ed4586a4f32b9")
)

// Stream makes a stream or fails the test.
func Stream(t testing.TB, newStream New, key, iv []byte, decrypt bool) cipher.Stream {
	t.Helper()
	s, err := newStream(key, iv, decrypt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// CheckNIST runs the NIST vectors through newStream: encrypting into another buffer,
// decrypting in place.
func CheckNIST(t *testing.T, newStream New) {
	t.Helper()
	got := make([]byte, len(NISTPlain))
	Stream(t, newStream, NISTKey, NISTIV, false).XORKeyStream(got, NISTPlain)
	if !bytes.Equal(got, NISTCipher) {
		t.Fatalf("encrypt: % x, want % x", got, NISTCipher)
	}
	Stream(t, newStream, NISTKey, NISTIV, true).XORKeyStream(got, got)
	if !bytes.Equal(got, NISTPlain) {
		t.Fatalf("decrypt: % x, want % x", got, NISTPlain)
	}
}

// CheckSplits feeds random inputs of each size to a reference stream in one call and to
// newStream's in calls of random lengths (empty calls among them), into another buffer or in
// place, both ways, and wants the same bytes; random keys and IVs each time.
func CheckSplits(t *testing.T, reference, newStream New, sizes []int, rng *rand.Rand) {
	t.Helper()
	for _, size := range sizes {
		for _, decrypt := range []bool{false, true} {
			key, iv, src := random(rng, 16), random(rng, 16), random(rng, size)
			want := make([]byte, size)
			Stream(t, reference, key, iv, decrypt).XORKeyStream(want, src)
			for _, inPlace := range []bool{false, true} {
				got := split(Stream(t, newStream, key, iv, decrypt), src, inPlace, rng)
				if !bytes.Equal(got, want) {
					t.Fatalf("size %d decrypt %v in place %v: differs from the reference", size, decrypt, inPlace)
				}
			}
		}
	}
}

// split transforms src with s in calls of random lengths (0 included) and returns the output.
func split(s cipher.Stream, src []byte, inPlace bool, rng *rand.Rand) []byte {
	out := make([]byte, len(src))
	in := out
	if inPlace {
		copy(out, src)
	} else {
		in = src
	}
	for off := 0; off < len(src); {
		n := rng.IntN(min(len(src)-off, 300) + 1)
		s.XORKeyStream(out[off:off+n], in[off:off+n])
		off += n
	}
	return out
}

func random(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}
