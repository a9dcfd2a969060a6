package bridge

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"testing"

	"github.com/moonbridge/moonbridge/mc"
)

// The Minecraft bytes after the login's first packets, as the tests read and write them:
// compressed frames and NBT text.

// packetOf is the packet id and fields of a frame body; in the compressed format the body
// starts with the packet's length, 0 when it is not compressed.
func packetOf(t *testing.T, body []byte, compressed bool) (int32, []byte) {
	t.Helper()
	if compressed {
		size, n, err := mc.ReadVarInt(body)
		if err != nil {
			t.Fatalf("compressed frame % x: %v", body, err)
		}
		body = body[n:]
		if size != 0 {
			body = inflate(t, body, int(size))
		}
	}
	id, fields, err := mc.PacketID(body)
	if err != nil {
		t.Fatalf("packet % x: %v", body, err)
	}
	return id, fields
}

func inflate(t *testing.T, b []byte, size int) []byte {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	packet, err := io.ReadAll(zr)
	if err != nil || len(packet) != size {
		t.Fatalf("inflated %d bytes (%v), want %d", len(packet), err, size)
	}
	return packet
}

// nbtText reads a nameless NBT text component that is the whole of b: a string tag, or a
// compound that holds only the string tag "text".
func nbtText(b []byte) (string, bool) {
	if inner, ok := bytes.CutPrefix(b, []byte{0x0a, 0x08, 0, 4, 't', 'e', 'x', 't'}); ok {
		inner, ok = bytes.CutSuffix(inner, []byte{0x00}) // the compound's end tag
		return nbtStringValue(inner, ok)
	}
	inner, ok := bytes.CutPrefix(b, []byte{0x08})
	return nbtStringValue(inner, ok)
}

// nbtStringValue reads a string tag's value that is the whole of b: a big-endian uint16 length
// and (modified) UTF-8.
func nbtStringValue(b []byte, ok bool) (string, bool) {
	if !ok || len(b) < 2 || int(binary.BigEndian.Uint16(b)) != len(b)-2 {
		return "", false
	}
	return string(b[2:]), true
}
