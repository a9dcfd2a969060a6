package mc

import (
	"errors"
	"testing"
)

func TestParsePlayerName(t *testing.T) {
	// 1.20.2+: name "Steve", then a 16-byte UUID the parser does not need.
	frame := AppendFrame(nil, 0x00, append([]byte("\x05Steve"), make([]byte, 16)...))
	for cut := 0; cut < 1+1+1+5; cut++ {
		if _, _, err := ParsePlayerName(frame[:cut]); err != ErrNeedMore {
			t.Errorf("first %d bytes: %v, want ErrNeedMore", cut, err)
		}
	}
	name, n, err := ParsePlayerName(frame[:1+1+1+5]) // the UUID has not arrived: the name is enough
	if err != nil || name != "Steve" || n != len(frame) {
		t.Errorf("got %q, %d, %v; want Steve, %d", name, n, err, len(frame))
	}
	long := AppendFrame(nil, 0x00, []byte("\x11abcdefghijklmnopq"))
	if _, _, err := ParsePlayerName(long); !errors.Is(err, ErrNameTooLong) {
		t.Errorf("17-character name: %v, want ErrNameTooLong", err)
	}
	if _, _, err := ParsePlayerName([]byte{2, 0x01, 0}); !errors.Is(err, ErrPacketID) {
		t.Errorf("packet id 1: %v, want ErrPacketID", err)
	}
}

func TestParseLoginStartUUIDByVersion(t *testing.T) {
	uuid := [16]byte{0x06, 0x9a, 0x79, 0xf4, 0x44, 0xe9, 0x47, 0x26, 0xa5, 0xbe, 0xfc, 0xa9, 0x0e, 0x38, 0xaa, 0xf5}
	name := []byte("\x05Steve")
	withUUID := func(prefix ...byte) []byte {
		return AppendFrame(nil, 0x00, append(append(append([]byte(nil), name...), prefix...), uuid[:]...))
	}
	for _, tc := range []struct {
		protocol int32
		frame    []byte
		hasUUID  bool
	}{
		{767, withUUID(), true},
		{764, withUUID(), true},
		{763, withUUID(1), true},
		{763, AppendFrame(nil, 0x00, append(append([]byte(nil), name...), 0)), false},
		{760, withUUID(0, 1), true},
		{760, AppendFrame(nil, 0x00, append(append([]byte(nil), name...), 1, 9, 9, 9)), false}, // signature first: not read
		{758, AppendFrame(nil, 0x00, name), false},
	} {
		ls, err := ParseLoginStart(tc.frame, tc.protocol)
		if err != nil || ls.Name != "Steve" || ls.HasUUID != tc.hasUUID || tc.hasUUID && ls.UUID != uuid {
			t.Errorf("protocol %d: %+v, %v; want Steve, UUID %v", tc.protocol, ls, err, tc.hasUUID)
		}
		if tc.hasUUID {
			if _, err := ParseLoginStart(tc.frame[:len(tc.frame)-1], tc.protocol); err != ErrNeedMore {
				t.Errorf("protocol %d, UUID cut short: %v, want ErrNeedMore", tc.protocol, err)
			}
		}
	}
	if got := UUIDString(uuid); got != "069a79f4-44e9-4726-a5be-fca90e38aaf5" {
		t.Errorf("UUIDString: %s", got)
	}
}
