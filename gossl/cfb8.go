package gossl

import (
	"crypto/cipher"
	"io"
)

// CFB8Error is a failure to make a CFB8 stream (a key or IV of the wrong size, no memory).
type CFB8Error struct{ Reason string }

func (e *CFB8Error) Error() string { return "boringssl cfb8: " + e.Reason }

// NewCFB8Pair returns the two directions of a Minecraft connection's cipher in the shim (AES-NI
// with the register in a vector register where CFB8Accelerated, BoringSSL's AES otherwise):
// AES-128/CFB8 with key (the 16-byte shared secret) as key and IV. Each XORKeyStream is one
// cgo call; the streams also implement io.Closer, which frees them at once (otherwise the
// garbage collector does). In a pure-Go build it fails with ErrCFB8NotCompiled.
func NewCFB8Pair(key []byte) (enc, dec cipher.Stream, err error) {
	if enc, err = NewCFB8(key, key, false); err != nil {
		return nil, nil, err
	}
	if dec, err = NewCFB8(key, key, true); err != nil {
		enc.(io.Closer).Close()
		return nil, nil, err
	}
	return enc, dec, nil
}

// CFB8Accelerated reports whether NewCFB8's streams use AES-NI with the shift register in a
// vector register (the cgo build on an x86-64 CPU with AES-NI and SSSE3); false in a pure-Go
// build and where the shim falls back to BoringSSL's AES_encrypt per byte.
func CFB8Accelerated() bool { return cfb8Accelerated() }

// NewCFB8 returns one direction of the shim's AES-128/CFB8 for any 16-byte IV (the
// known-answer tests need one apart from the key). The stream implements io.Closer.
func NewCFB8(key, iv []byte, decrypt bool) (cipher.Stream, error) {
	return newBoringCFB8(key, iv, decrypt)
}
