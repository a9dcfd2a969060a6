package play

import (
	"encoding/binary"
	"unicode/utf16"
)

// Since 1.20.3 a text component goes on the wire as network NBT: one tag with no name. A plain
// text is a String tag, which vanilla reads as a literal:
//
//	0x08         tag type String
//	uint16       length in bytes, big-endian
//	bytes        Java's modified UTF-8: NUL as C0 80, a character outside the BMP as its two
//	             UTF-16 surrogates of 3 bytes each, the rest as in UTF-8

const (
	nbtStringTag = 0x08
	maxNBTString = 1<<16 - 1 // the length is a uint16
)

// fitNBTString cuts s to what an NBT string holds, between characters.
func fitNBTString(s string) string {
	size := 0
	for i, r := range s {
		if size += mutf8Len(r); size > maxNBTString {
			return s[:i]
		}
	}
	return s
}

func nbtStringTagLen(s string) int {
	size := 1 + 2
	for _, r := range s {
		size += mutf8Len(r)
	}
	return size
}

// appendNBTStringTag appends s, which fitNBTString has cut, as a root String tag. Bytes of s
// that are not UTF-8 go out as U+FFFD, as ranging over s reads them.
func appendNBTStringTag(dst []byte, s string) []byte {
	dst = append(dst, nbtStringTag)
	dst = binary.BigEndian.AppendUint16(dst, uint16(nbtStringTagLen(s)-3))
	for _, r := range s {
		if r > 0xffff {
			hi, lo := utf16.EncodeRune(r)
			dst = appendMUTF8Unit(appendMUTF8Unit(dst, hi), lo)
		} else {
			dst = appendMUTF8Unit(dst, r)
		}
	}
	return dst
}

// mutf8Len is the modified UTF-8 length of r.
func mutf8Len(r rune) int {
	switch {
	case r > 0xffff:
		return 6
	case r >= 0x800:
		return 3
	case r >= 0x80 || r == 0:
		return 2
	}
	return 1
}

// appendMUTF8Unit appends one UTF-16 code unit as modified UTF-8.
func appendMUTF8Unit(dst []byte, u rune) []byte {
	switch {
	case u >= 0x800:
		return append(dst, 0xe0|byte(u>>12), 0x80|byte(u>>6)&0x3f, 0x80|byte(u)&0x3f)
	case u >= 0x80 || u == 0:
		return append(dst, 0xc0|byte(u>>6), 0x80|byte(u)&0x3f)
	}
	return append(dst, byte(u))
}
