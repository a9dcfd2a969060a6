//go:build boringssl && cgo

package boring

/*
#include "mbtls.h"

// mb_cfb8_xor neither keeps Go pointers nor calls back into Go: with both marks cgo leaves the
// slices where they are, so a call allocates nothing.
#cgo noescape mb_cfb8_xor
#cgo nocallback mb_cfb8_xor
*/
import "C"

import (
	"crypto/cipher"
	"errors"
	"runtime"
)

// CFB8 is one direction of AES-128/CFB8 in the shim (native/src/mb_cfb8.c). Each XORKeyStream
// is one cgo call whatever its length. It is not safe for concurrent use, like every
// cipher.Stream. Like Engine it has a cleanup: one dropped without Close is freed when collected.
type CFB8 struct {
	p       *C.mb_cfb8
	decrypt bool
	cleanup runtime.Cleanup
}

// CFB8Accelerated reports whether the shim's streams run AES-NI with the register in a vector
// register (x86-64 CPUs with AES-NI and SSSE3) rather than BoringSSL's AES_encrypt per byte.
func CFB8Accelerated() bool { return C.mb_cfb8_accelerated() != 0 }

// NewCFB8 makes a CFB8 stream (a *CFB8) with an AES-128 key and a 16-byte IV; mc/cfb8 plugs it
// in as its BoringSSL implementation.
func NewCFB8(key, iv []byte, decrypt bool) (cipher.Stream, error) {
	if len(iv) != C.MB_CFB8_IV_LEN {
		return nil, errors.New("the IV is not 16 bytes")
	}
	dir := C.int(C.MB_CFB8_ENCRYPT)
	if decrypt {
		dir = C.MB_CFB8_DECRYPT
	}
	var p *C.mb_cfb8
	if code := C.mb_cfb8_new(bytePtr(key), C.size_t(len(key)), bytePtr(iv), dir, &p); code != C.MB_CFB8_OK {
		return nil, cfb8Error(code)
	}
	s := &CFB8{p: p, decrypt: decrypt}
	s.cleanup = runtime.AddCleanup(s, freeCFB8, p)
	return s, nil
}

func freeCFB8(p *C.mb_cfb8) { C.mb_cfb8_free(p) }

// XORKeyStream transforms src into dst (the same slice, or not overlapping), continuing the
// stream. It panics when dst is shorter than src or after Free, as crypto/cipher's streams do
// on misuse: both are the caller's bugs, not bad input.
func (s *CFB8) XORKeyStream(dst, src []byte) {
	if len(dst) < len(src) {
		panic("boring: CFB8 output smaller than input")
	}
	if s.p == nil {
		panic("boring: CFB8 used after Close")
	}
	if code := C.mb_cfb8_xor(s.p, bytePtr(dst), bytePtr(src), C.size_t(len(src))); code != C.MB_CFB8_OK {
		panic(cfb8Error(code)) // unreachable: the arguments were checked above
	}
	runtime.KeepAlive(s) // the cleanup must not free p during the call
}

// Export is the stream's key and register (the last 16 ciphertext bytes, the IV before 16 have
// passed), and whether it decrypts: a stream made from them continues exactly where this one
// stands. Both are key material for the caller to clear.
func (s *CFB8) Export() (key, reg [16]byte, decrypt bool) {
	if s.p == nil {
		panic("boring: CFB8 exported after Close")
	}
	C.mb_cfb8_export(s.p, (*C.uint8_t)(&key[0]), (*C.uint8_t)(&reg[0]))
	runtime.KeepAlive(s)
	return key, reg, s.decrypt
}

// Close wipes and releases the C stream (it is Engine.Free's twin under io.Closer's name, so
// that a cipher.Stream holder can free it); it is safe to call twice. The cleanup is stopped
// first, so the stream is freed exactly once.
func (s *CFB8) Close() error {
	if s.p != nil {
		s.cleanup.Stop()
		C.mb_cfb8_free(s.p)
		s.p = nil
	}
	return nil
}

func cfb8Error(code C.int) error {
	switch code {
	case C.MB_CFB8_BAD_KEY:
		return errors.New("the key is not a 16-byte AES-128 key")
	case C.MB_CFB8_NO_MEMORY:
		return errors.New("out of memory")
	default:
		return errors.New("bad argument")
	}
}
