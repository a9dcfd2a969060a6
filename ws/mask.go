package ws

import (
	"encoding/binary"
	"math/bits"
)

// MaskBytes XORs b in place with the masking key, starting at byte pos of
// the key (pos counts payload bytes already masked, modulo 4), and returns
// the position for the bytes that follow b. key is the wire key read as a
// little-endian uint32 (Header.Mask). Masking and unmasking are the same
// operation.
func MaskBytes(key uint32, pos int, b []byte) int {
	return maskCopy(b, b, key, pos)
}

// maskCopy writes src XOR key into dst (len(dst) >= len(src)) eight bytes
// at a time. dst may overlap src when it starts at or before src: each
// word is loaded before the store that could overlap it, and a store never
// reaches a word not yet loaded. That is what lets the reader unmask a
// payload while moving it down over the frame header.
func maskCopy(dst, src []byte, key uint32, pos int) int {
	next := (pos + len(src)) & 3
	if key == 0 {
		copy(dst, src)
		return next
	}
	// Rotate the key so that its low byte applies to src[0].
	k32 := bits.RotateLeft32(key, -8*(pos&3))
	k64 := uint64(k32)<<32 | uint64(k32)
	dst = dst[:len(src)]
	for len(src) >= 32 {
		d, s := dst[:32:32], src[:32:32] // one bounds check per 32 bytes
		binary.LittleEndian.PutUint64(d[0:], binary.LittleEndian.Uint64(s[0:])^k64)
		binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:])^k64)
		binary.LittleEndian.PutUint64(d[16:], binary.LittleEndian.Uint64(s[16:])^k64)
		binary.LittleEndian.PutUint64(d[24:], binary.LittleEndian.Uint64(s[24:])^k64)
		dst, src = dst[32:], src[32:]
	}
	for len(src) >= 8 {
		binary.LittleEndian.PutUint64(dst[:8:8], binary.LittleEndian.Uint64(src[:8:8])^k64)
		dst, src = dst[8:], src[8:]
	}
	for i := range src {
		dst[i] = src[i] ^ byte(k64>>(8*(i&3)))
	}
	return next
}
