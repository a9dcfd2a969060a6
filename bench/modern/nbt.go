package modern

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// A Disconnect's reason in the configuration and play states is a text component as network
// NBT: a root tag without a name. A plain text is a String tag, its value in Java's modified
// UTF-8 (DataOutput.writeUTF):
//
//	08 | u16 byte length | UTF-16 code units, each as
//	     0001-007F        -> 0xxxxxxx
//	     0000, 0080-07FF  -> 110xxxxx 10xxxxxx
//	     0800-FFFF        -> 1110xxxx 10xxxxxx 10xxxxxx   (a surrogate pair is two of these)

const nbtString = 0x08

var (
	errNBTTooLong  = errors.New("NBT string over 65535 bytes")
	errModifiedUTF = errors.New("bad modified UTF-8")
)

// AppendNBTString appends s as a root NBT String tag, or fails for a text over 65535 bytes.
func AppendNBTString(dst []byte, s string) ([]byte, error) {
	var units []byte
	for _, u := range utf16.Encode([]rune(s)) {
		switch {
		case u >= 0x01 && u <= 0x7f:
			units = append(units, byte(u))
		case u <= 0x7ff:
			units = append(units, 0xc0|byte(u>>6), 0x80|byte(u&0x3f))
		default:
			units = append(units, 0xe0|byte(u>>12), 0x80|byte(u>>6&0x3f), 0x80|byte(u&0x3f))
		}
	}
	if len(units) > 0xffff {
		return dst, errNBTTooLong
	}
	dst = binary.BigEndian.AppendUint16(append(dst, nbtString), uint16(len(units)))
	return append(dst, units...), nil
}

// nbtText reads a Disconnect's reason: the text of a String tag; a root tag of another
// type (a styled component) is named, not read.
func (f *fieldReader) nbtText() string {
	tag := f.take(1)
	if f.err != nil {
		return ""
	}
	if tag[0] != nbtString {
		f.take(len(f.b))
		return fmt.Sprintf("<NBT tag %#02x, not a plain String>", tag[0])
	}
	s, err := decodeModifiedUTF8(f.take(int(f.uint16())))
	if err != nil {
		f.fail(err)
	}
	return s
}

func decodeModifiedUTF8(b []byte) (string, error) {
	var units []uint16
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80 && c != 0:
			units, i = append(units, uint16(c)), i+1
		case c&0xe0 == 0xc0 && i+1 < len(b) && b[i+1]&0xc0 == 0x80:
			units, i = append(units, uint16(c&0x1f)<<6|uint16(b[i+1]&0x3f)), i+2
		case c&0xf0 == 0xe0 && i+2 < len(b) && b[i+1]&0xc0 == 0x80 && b[i+2]&0xc0 == 0x80:
			units, i = append(units, uint16(c&0x0f)<<12|uint16(b[i+1]&0x3f)<<6|uint16(b[i+2]&0x3f)), i+3
		default:
			return "", fmt.Errorf("%w at byte %d", errModifiedUTF, i)
		}
	}
	return string(utf16.Decode(units)), nil
}
