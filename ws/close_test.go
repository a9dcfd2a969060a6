package ws

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestClosePayloadWire(t *testing.T) {
	var buf [MaxControlPayload]byte
	n := PutClosePayload(buf[:], CloseNormal, "bye")
	if want := []byte{0x03, 0xe8, 'b', 'y', 'e'}; !bytes.Equal(buf[:n], want) {
		t.Fatalf("close payload = % x, want % x", buf[:n], want)
	}
	if n := PutClosePayload(buf[:], CloseNoStatus, "ignored"); n != 0 {
		t.Fatalf("CloseNoStatus wrote %d bytes, want an empty payload", n)
	}
	code, reason, err := ParseClosePayload([]byte{0x03, 0xf1, 'x'})
	if err != nil || code != CloseMessageTooBig || string(reason) != "x" {
		t.Fatalf("parse = %d %q %v", code, reason, err)
	}
	if code, _, err := ParseClosePayload(nil); err != nil || code != CloseNoStatus {
		t.Fatalf("empty payload = %d %v, want 1005", code, err)
	}
}

func TestCloseReasonIsCutAtARuneBoundary(t *testing.T) {
	var buf [MaxControlPayload]byte
	long := strings.Repeat("é", 100) // 200 bytes of two-byte runes
	n := PutClosePayload(buf[:], CloseGoingAway, long)
	// 123 bytes fit after the code; the 62nd rune would end at byte 124, so 61 whole runes stay.
	want := strings.Repeat("é", (MaxControlPayload-2)/2)
	if code, reason, err := ParseClosePayload(buf[:n]); err != nil || code != CloseGoingAway || string(reason) != want {
		t.Fatalf("close payload of %d bytes parses as %d %q %v, want %d and %d runes of é",
			n, code, reason, err, CloseGoingAway, len(want)/2)
	}
}

func TestClosePayloadRejects(t *testing.T) {
	cases := []struct {
		name    string
		payload []byte
		code    CloseCode
	}{
		{"one byte", []byte{0x03}, CloseProtocolError},
		{"code 999", []byte{0x03, 0xe7}, CloseProtocolError},
		{"code 1004", []byte{0x03, 0xec}, CloseProtocolError},
		{"code 1005", []byte{0x03, 0xed}, CloseProtocolError},
		{"code 1006", []byte{0x03, 0xee}, CloseProtocolError},
		{"code 1015", []byte{0x03, 0xf7}, CloseProtocolError},
		{"code 2999", []byte{0x0b, 0xb7}, CloseProtocolError},
		{"code 5000", []byte{0x13, 0x88}, CloseProtocolError},
		{"reason not UTF-8", []byte{0x03, 0xe8, 0xff, 0xfe}, CloseInvalidPayload},
		{"reason with a cut rune", []byte{0x03, 0xe8, 0xc3}, CloseInvalidPayload},
	}
	for _, tc := range cases {
		_, _, err := ParseClosePayload(tc.payload)
		var pe *ProtocolError
		if !errors.As(err, &pe) || pe.Code != tc.code {
			t.Errorf("%s: err = %v, want close %d", tc.name, err, tc.code)
		}
	}
	for _, ok := range []CloseCode{1000, 1003, 1007, 1011, 1014, 3000, 4999} {
		if !ok.IsValidOnWire() {
			t.Errorf("%d should be valid on the wire", ok)
		}
	}
}

func TestCloseCodeString(t *testing.T) {
	cases := map[CloseCode]string{
		CloseGoingAway: "going away", CloseTryAgainLater: "try again later", 4000: "close code 4000",
	}
	for code, want := range cases {
		if got := code.String(); got != want {
			t.Errorf("CloseCode(%d).String() = %q, want %q", uint16(code), got, want)
		}
	}
}
