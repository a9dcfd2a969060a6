package login

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
	"testing/iotest"

	"github.com/moonbridge/moonbridge/mc"
)

func TestLoginRequestIsReadBack(t *testing.T) {
	req := AppendRequest(nil, "localhost", 25565, "mbbench00001")
	r := mc.NewFrameReader(iotest.OneByteReader(bytes.NewReader(req)), 4)
	name, err := ReadRequest(r)
	if err != nil || name != "mbbench00001" {
		t.Fatalf("ReadRequest = %q, %v", name, err)
	}
}

func TestReadRequestRefusesStatus(t *testing.T) {
	req := AppendRequest(nil, "localhost", 25565, "x")
	req[len(req)-5] = 1 // the handshake's last byte is its next state; Login Start "x" is 4 bytes
	_, err := ReadRequest(mc.NewFrameReader(bytes.NewReader(req), 64))
	var le *Error
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
