package mc

import (
	"encoding/binary"
	"unicode"
	"unicode/utf16"
)

// Java strings are UTF-16: vanilla limits count its code units and the
// pre-1.7 protocol puts them on the wire big-endian.

// utf16Len counts s the way Java's String.length does.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// truncateUTF16 cuts s to at most n UTF-16 units without splitting a
// character.
func truncateUTF16(s string, n int) string {
	for i, r := range s {
		if n -= utf16.RuneLen(r); n < 0 {
			return s[:i]
		}
	}
	return s
}

func appendUTF16BE(dst []byte, s string) []byte {
	for _, r := range s {
		if utf16.RuneLen(r) == 1 {
			dst = binary.BigEndian.AppendUint16(dst, uint16(r))
			continue
		}
		hi, lo := utf16.EncodeRune(r)
		dst = binary.BigEndian.AppendUint16(dst, uint16(hi))
		dst = binary.BigEndian.AppendUint16(dst, uint16(lo))
	}
	return dst
}

// decodeUTF16BE decodes b, reporting false for an odd length or an
// unpaired surrogate.
func decodeUTF16BE(b []byte) (string, bool) {
	if len(b)%2 != 0 {
		return "", false
	}
	runes := make([]rune, 0, len(b)/2)
	for i := 0; i < len(b); i += 2 {
		r := rune(binary.BigEndian.Uint16(b[i:]))
		if utf16.IsSurrogate(r) {
			if i+4 > len(b) {
				return "", false
			}
			r = utf16.DecodeRune(r, rune(binary.BigEndian.Uint16(b[i+2:])))
			if r == unicode.ReplacementChar {
				return "", false
			}
			i += 2
		}
		runes = append(runes, r)
	}
	return string(runes), true
}
