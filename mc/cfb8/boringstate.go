package cfb8

import (
	"crypto/aes"
	"crypto/cipher"
	"io"
)

// boringStream is a shim stream that keeps what Export needs on the Go side: the key, and the
// register followed as the last 16 ciphertext bytes, since the C state is not readable. That
// costs a copy of at most 16 bytes per call, against the cgo call per XORKeyStream.
type boringStream struct {
	inner   cipher.Stream // a *boring.CFB8; also an io.Closer
	key     [16]byte
	reg     [aes.BlockSize]byte
	decrypt bool
}

func newBoringStream(inner cipher.Stream, key, iv []byte, decrypt bool) *boringStream {
	s := &boringStream{inner: inner, decrypt: decrypt}
	copy(s.key[:], key)
	copy(s.reg[:], iv)
	return s
}

// XORKeyStream runs the shim, then shifts the ciphertext into the register. Decrypting, the
// ciphertext is src, taken before the call because dst may be src.
func (s *boringStream) XORKeyStream(dst, src []byte) {
	var tail [aes.BlockSize]byte
	n := min(len(src), aes.BlockSize)
	if s.decrypt {
		copy(tail[:], src[len(src)-n:])
	}
	s.inner.XORKeyStream(dst, src)
	if !s.decrypt {
		copy(tail[:], dst[len(src)-n:len(src)])
	}
	copy(s.reg[:], s.reg[n:])
	copy(s.reg[aes.BlockSize-n:], tail[:n])
}

// Close wipes the key and register and frees the shim's stream.
func (s *boringStream) Close() error {
	clear(s.key[:])
	clear(s.reg[:])
	return s.inner.(io.Closer).Close()
}

func (s *boringStream) exportState() State {
	return State{Key: s.key, Register: s.reg, Decrypt: s.decrypt}
}
