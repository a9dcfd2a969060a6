package mc

import "math/bits"

// A VarInt is a 32-bit two's-complement integer in 7-bit groups, least
// significant group first; the high bit of each byte says another follows:
//
//	  300 = 0b10_0101100  ->  1_0101100  0_0000010  ->  AC 02
//	   -1                 ->  FF FF FF FF 0F           (5 bytes, top 4 bits of
//	                                                    the last byte unused)
//
// Vanilla tolerates padded encodings such as 80 00 for 0; this package does
// not, so that one value has one encoding and a parsed frame re-encodes to
// the same bytes.

// MaxVarIntLen is the longest VarInt encoding, 32 bits in 7-bit groups.
const MaxVarIntLen = 5

// ReadVarInt decodes the VarInt at the start of b and returns its value and
// the number of bytes it used. It returns ErrNeedMore while b ends inside
// the VarInt, and a *ProtocolError for encodings that are too long, wider
// than 32 bits or not minimal.
func ReadVarInt(b []byte) (v int32, n int, err error) {
	v, n, err = decodeVarInt(b)
	if err != nil && err != ErrNeedMore {
		return 0, 0, protocolError("varint", 0, err)
	}
	return v, n, err
}

// decodeVarInt is ReadVarInt with bare sentinel errors, so that callers
// can place the fault at their own offset.
func decodeVarInt(b []byte) (int32, int, error) {
	var u uint32
	for i := range MaxVarIntLen {
		if i == len(b) {
			return 0, 0, ErrNeedMore
		}
		c := b[i]
		u |= uint32(c&0x7f) << (7 * i)
		if c&0x80 != 0 {
			continue
		}
		switch {
		case i == MaxVarIntLen-1 && c > 0x0f:
			return 0, 0, ErrVarIntTooLong
		case i > 0 && c == 0:
			return 0, 0, ErrVarIntNonCanonical
		}
		return int32(u), i + 1, nil
	}
	return 0, 0, ErrVarIntTooLong
}

// AppendVarInt appends the minimal encoding of v to dst. It allocates only
// when dst lacks the capacity for at most MaxVarIntLen bytes.
func AppendVarInt(dst []byte, v int32) []byte {
	u := uint32(v)
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// VarIntLen is the number of bytes AppendVarInt writes for v.
func VarIntLen(v int32) int {
	return (bits.Len32(uint32(v)|1) + 6) / 7
}
