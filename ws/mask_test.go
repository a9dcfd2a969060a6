package ws

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// maskReference is the RFC's definition, one byte at a time.
func maskReference(key uint32, pos int, b []byte) {
	var k [4]byte
	binary.LittleEndian.PutUint32(k[:], key)
	for i := range b {
		b[i] ^= k[(pos+i)%4]
	}
}

func FuzzMask(f *testing.F) {
	f.Add([]byte("Hello"), uint32(testKey), 0, 0)
	f.Add(bytes.Repeat([]byte{0x55}, 100), uint32(0xdeadbeef), 3, 7)
	f.Add(bytes.Repeat([]byte{0}, 33), uint32(0), 1, 1)
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 77), uint32(0x01020304), 2, 33)
	f.Fuzz(func(t *testing.T, data []byte, key uint32, pos int, shift int) {
		pos &= 3
		want := bytes.Clone(data)
		maskReference(key, pos, want)

		got := bytes.Clone(data)
		if next := MaskBytes(key, pos, got); next != (pos+len(data))%4 {
			t.Fatalf("MaskBytes returned pos %d, want %d", next, (pos+len(data))%4)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("MaskBytes differs from the byte-wise reference")
		}
		// Unmasking while moving the payload down, as the reader does.
		shift = int(uint(shift) % 40)
		buf := append(make([]byte, shift), data...)
		maskCopy(buf, buf[shift:], key, pos)
		if !bytes.Equal(buf[:len(data)], want) {
			t.Fatalf("overlapping maskCopy (shift %d) differs from the reference", shift)
		}
	})
}
