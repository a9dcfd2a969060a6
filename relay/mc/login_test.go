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
