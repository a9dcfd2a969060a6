package mcwire

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"testing"
	"testing/iotest"
)

func TestLoginRequestIsReadBack(t *testing.T) {
	req := AppendLoginRequest(nil, "localhost", 25565, "mbbench00001")
	r := NewReader(iotest.OneByteReader(bytes.NewReader(req)), 4)
	name, err := ReadLogin(r)
	if err != nil || name != "mbbench00001" {
		t.Fatalf("ReadLogin = %q, %v", name, err)
	}
}

func TestReadLoginRefusesStatus(t *testing.T) {
	req := AppendLoginRequest(nil, "localhost", 25565, "x")
	req[len(req)-5] = 1 // the handshake's last byte is its next state; Login Start "x" is 4 bytes
	_, err := ReadLogin(NewReader(bytes.NewReader(req), 64))
	var le *LoginError
	if !errors.As(err, &le) || le.Step != "handshake" {
		t.Errorf("status handshake: err = %v", err)
	}
}

func TestOfflineUUIDIsVersion3(t *testing.T) {
	u := offlineUUID("Notch")
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(u) {
		t.Errorf("uuid %q", u)
	}
}

func TestReaderGrowsAndSplitsBatches(t *testing.T) {
	big := AppendFrame(nil, 0x3F, bytes.Repeat([]byte{7}, 1000))
	small := AppendFrame(nil, 0x03, []byte{1})
	stream := append(append(append([]byte(nil), small...), big...), small...)
	r := NewReader(bytes.NewReader(stream), 16)
	var got [][]byte
	for {
		frame, _, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, bytes.Clone(frame))
	}
	if len(got) != 3 || !bytes.Equal(got[1], big) || !bytes.Equal(got[2], small) {
		t.Errorf("frames %d, want small, big, small", len(got))
	}
}

func TestReaderEndInsideFrame(t *testing.T) {
	frame := AppendFrame(nil, 0x3F, make([]byte, 50))
	r := NewReader(bytes.NewReader(frame[:20]), 64)
	if _, _, err := r.ReadFrame(); err != io.ErrUnexpectedEOF {
		t.Errorf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}
