package cfb8

import (
	"crypto/cipher"
	"errors"
	"io"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// ErrBoringNotCompiled is NewBoringPair's (and Choose's, for ImplBoringSSL) answer in a build
// without BoringSSL.
var ErrBoringNotCompiled = errors.New("the boringssl CFB8 cipher is not compiled into this binary " +
	"(a pure-Go build); build with `make build` for BoringSSL, or set login.cipher to auto or go")

// BoringError is a failure to make a BoringSSL CFB8 stream (a key or IV of the wrong size, no
// memory).
type BoringError struct{ Reason string }

func (e *BoringError) Error() string { return "boringssl cfb8: " + e.Reason }

// NewBoringPair is NewAESPair in the shim (native/src/mb_cfb8.c, through internal/boring):
// AES-NI with the register in a vector register where BoringAccelerated, BoringSSL's AES
// otherwise. Each XORKeyStream is one cgo call; the streams also implement io.Closer, which
// frees them at once (otherwise the garbage collector does). In a pure-Go build it fails with
// ErrBoringNotCompiled.
func NewBoringPair(key []byte) (enc, dec cipher.Stream, err error) {
	if enc, err = newBoring(key, key, false); err != nil {
		return nil, nil, err
	}
	if dec, err = newBoring(key, key, true); err != nil {
		enc.(io.Closer).Close()
		return nil, nil, err
	}
	return enc, dec, nil
}

// BoringAccelerated reports whether NewBoringPair's streams use AES-NI with the shift register
// in a vector register (the cgo build on an x86-64 CPU with AES-NI and SSSE3); false in a
// pure-Go build and where the shim falls back to BoringSSL's AES_encrypt per byte.
func BoringAccelerated() bool { return boring.CFB8Accelerated() }

// newBoring is one direction of the shim's AES-128/CFB8 for any 16-byte IV (the known-answer
// tests need one apart from the key).
func newBoring(key, iv []byte, decrypt bool) (cipher.Stream, error) {
	if !boring.Enabled {
		return nil, ErrBoringNotCompiled
	}
	s, err := boring.NewCFB8(key, iv, decrypt)
	if err != nil {
		return nil, &BoringError{Reason: err.Error()}
	}
	return s, nil
}
