package modern

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestNBTStringIsModifiedUTF8(t *testing.T) {
	// NUL is two bytes, é two, € three, and U+1F600 a surrogate pair of three bytes each.
	got, err := AppendNBTString(nil, "a\x00é€😀")
	want := []byte{0x08, 0x00, 0x0e, 'a', 0xc0, 0x80, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80}
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AppendNBTString = % x, %v; want % x", got, err, want)
	}
	f := readFields(StatePlay, "disconnect", got)
	if text := f.nbtText(); text != "a\x00é€😀" || f.done() != nil {
		t.Errorf("read back %q, %v", text, f.done())
	}
}

func TestBadNBTIsAProtocolError(t *testing.T) {
	long := strings.Repeat("x", 0x10000)
	if _, err := AppendNBTString(nil, long); err == nil {
		t.Error("a 65536-byte string was encoded")
	}
	for name, b := range map[string][]byte{
		"truncated":    {0x08, 0x00, 0x05, 'a'},
		"raw NUL":      {0x08, 0x00, 0x01, 0x00},
		"cut sequence": {0x08, 0x00, 0x01, 0xc3},
		"no tag":       {},
	} {
		f := readFields(StatePlay, "disconnect", b)
		f.nbtText()
		if err := f.done(); !errors.As(err, new(*ProtocolError)) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestStyledReasonIsNamed(t *testing.T) {
	f := readFields(StatePlay, "disconnect", []byte{0x0a, 0x08, 0x00, 0x04, 't', 'e', 'x', 't', 0x00, 0x01, 'x', 0x00})
	if text := f.nbtText(); !strings.Contains(text, "0x0a") || f.done() != nil {
		t.Errorf("compound reason read as %q, %v", text, f.done())
	}
}
