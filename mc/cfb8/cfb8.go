// Package cfb8 is the cipher feedback mode with 8-bit segments (NIST SP 800-38A, 6.3, s = 8)
// over a 128-bit block cipher: what Minecraft encrypts its connections with after login
// (AES-128, the shared secret as both key and IV). Go's crypto/cipher has only full-block CFB.
//
// CFB8 runs the block cipher once per byte: each byte is XORed with the first byte of the
// encrypted shift register, and the ciphertext byte is shifted in:
//
//	register (16 bytes, starts as the IV) -> AES-128 -> first byte k
//	out = in XOR k;  register = register[1:] + (ciphertext byte: out encrypting, in decrypting)
//
// There are two implementations, named by Impl. ImplGo is this package's (New, NewAESPair):
// shifting a 16-byte register per byte would cost a copy per byte, so the register is a window
// sliding over a longer array, moved back to the start once per regBytes-16 bytes. ImplBoringSSL
// is the C shim's (NewBoringPair), plugged in from the cgo boundary internal/boring as Go's
// crypto/internal/boring plugs into crypto/aes: AES-NI with the register in a vector register on
// x86-64 (BoringAccelerated), BoringSSL's AES per byte elsewhere, and ErrBoringNotCompiled in a
// pure-Go build. Choose resolves an Impl, ImplAuto (DefaultImpl) by the rule of
// bench/results/2026-11-30-cfb8-vector-register.md; cmd/ only wires the choice into mc/auth.
package cfb8

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
)

// regBytes is the length of the array the register slides over.
const regBytes = 32 * aes.BlockSize

// Stream is one direction of CFB8; it implements cipher.Stream. It holds no buffer beyond its
// own fields and allocates nothing per call.
type Stream struct {
	block   cipher.Block
	key     [16]byte // kept for Export (an upgrade moving the session)
	decrypt bool
	pos     int            // the register is reg[pos : pos+BlockSize]
	reg     [regBytes]byte // the sliding window of ciphertext bytes
	out     [aes.BlockSize]byte
}

func newStream(block cipher.Block, key, iv []byte, decrypt bool) *Stream {
	s := &Stream{block: block, decrypt: decrypt}
	copy(s.key[:], key)
	copy(s.reg[:], iv)
	return s
}

// NewAESPair returns the two directions of a Minecraft connection's cipher: AES-128 with key as
// key and IV (the shared secret, 16 bytes). Both start from the same state; the client uses the
// same pair the other way round. Its signature is mc/auth's Config.NewCipher.
func NewAESPair(key []byte) (enc, dec cipher.Stream, err error) {
	if enc, err = New(key, key, false); err != nil {
		return nil, nil, err
	}
	dec, _ = New(key, key, true) // the same key and IV were just taken
	return enc, dec, nil
}

// New returns one direction of AES-128/CFB8 with key and a 16-byte IV.
func New(key, iv []byte, decrypt bool) (cipher.Stream, error) {
	if len(key) != 16 || len(iv) != aes.BlockSize {
		return nil, fmt.Errorf("cfb8: key of %d bytes and IV of %d, want 16 and 16 (AES-128)", len(key), len(iv))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return newStream(block, key, iv, decrypt), nil
}

// XORKeyStream encrypts (or decrypts) src into dst, which may be the same slice; len(dst) must
// be at least len(src). The stream carries on across calls.
func (s *Stream) XORKeyStream(dst, src []byte) {
	if len(dst) < len(src) {
		panic("cfb8: output smaller than input")
	}
	dst = dst[:len(src)]
	for i, in := range src {
		s.block.Encrypt(s.out[:], s.reg[s.pos:s.pos+aes.BlockSize])
		c := in ^ s.out[0]
		dst[i] = c
		if s.decrypt {
			c = in // the register takes the ciphertext: here the input
		}
		s.reg[s.pos+aes.BlockSize] = c
		s.pos++
		if s.pos+aes.BlockSize == regBytes {
			copy(s.reg[:aes.BlockSize], s.reg[s.pos:])
			s.pos = 0
		}
	}
}
