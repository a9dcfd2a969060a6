package mc

import (
	"bytes"
	"testing"
)

func TestAppendFrameAndPacketID(t *testing.T) {
	// Login Start "Steve": length 7, id 0, a string of 5 bytes.
	frame := AppendFrame([]byte("keep"), 0x00, AppendString(nil, "Steve"))
	if want := append([]byte("keep"), unhex("07 00 05 5374657665")...); !bytes.Equal(frame, want) {
		t.Fatalf("AppendFrame = % x, want % x", frame, want)
	}
	body, n, err := ReadFrame(frame[4:], MaxFrameLen)
	if err != nil || n != len(frame)-4 {
		t.Fatalf("ReadFrame = %d, %v", n, err)
	}
	id, fields, err := PacketID(body)
	if err != nil || id != 0 || !bytes.Equal(fields, AppendString(nil, "Steve")) {
		t.Errorf("PacketID = %#x, % x, %v", id, fields, err)
	}
	// An id of two VarInt bytes counts in the length.
	if got, want := AppendFrame(nil, 0x80, nil), unhex("02 8001"); !bytes.Equal(got, want) {
		t.Errorf("AppendFrame with a 2-byte id = % x, want % x", got, want)
	}
	if _, _, err := PacketID(unhex("80")); err != ErrNeedMore {
		t.Errorf("PacketID of a cut VarInt: %v, want ErrNeedMore", err)
	}
}
