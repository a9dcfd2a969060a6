package mc

import (
	"bytes"
	"errors"
	"testing"
)

func TestStatusRequestFrame(t *testing.T) {
	if got := AppendStatusRequest([]byte{0xaa}); !bytes.Equal(got, unhex("aa 01 00")) {
		t.Errorf("AppendStatusRequest = % x", got)
	}
}

func TestParseStatusResponse(t *testing.T) {
	good, err := Status{VersionName: "Paper 1.21", Protocol: 767, MOTD: "hi"}.JSON()
	if err != nil {
		t.Fatal(err)
	}
	frame := AppendStatusResponse(nil, good)
	body, _, err := ReadFrame(frame, MaxFrameLen)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParseStatusResponse(body); err != nil || !bytes.Equal(got, good) {
		t.Errorf("ParseStatusResponse(a real status) = %s, %v", got, err)
	}
	bodyOf := func(frame []byte) []byte { return frame[1:] } // every frame here has a 1-byte length
	cases := []struct {
		name string
		body []byte
		want error
	}{
		{"not JSON", bodyOf(AppendStatusResponse(nil, []byte("hello"))), ErrStatusJSON},
		{"no version", bodyOf(AppendStatusResponse(nil, []byte(`{"description":{"text":"x"}}`))), ErrStatusJSON},
		{"a JSON string", bodyOf(AppendStatusResponse(nil, []byte(`"x"`))), ErrStatusJSON},
		{"a pong", unhex("01 0102030405060708"), ErrPacketID},
		{"string past the frame", unhex("00 05 7b7d"), ErrTruncated},
		{"bytes after the string", unhex("00 02 7b7d 00"), ErrTrailingBytes},
		{"bad UTF-8", unhex("00 02 ff7d"), ErrBadEncoding},
	}
	for _, tc := range cases {
		var pe *ProtocolError
		if _, err := ParseStatusResponse(tc.body); !errors.Is(err, tc.want) || !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a *ProtocolError with %v", tc.name, err, tc.want)
		}
	}
}
