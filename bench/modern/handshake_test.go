package modern

import (
	"errors"
	"testing"

	"github.com/moonbridge/moonbridge/mc"
)

func TestHandshakeReadsBack(t *testing.T) {
	h := Handshake{Protocol: Protocol, Host: "play.example\x00FML3\x00", Port: 25565, NextState: NextTransfer}
	got, err := ParseHandshake(append(mc.AppendVarInt(nil, HandshakeID), h.Fields()...))
	if err != nil || got != h {
		t.Errorf("ParseHandshake = %+v, %v", got, err)
	}
}

func TestBadHandshakesAreProtocolErrors(t *testing.T) {
	fields := Handshake{Protocol: Protocol, Host: "h", Port: 1, NextState: 2}.Fields()
	for name, body := range map[string][]byte{
		"status id":     append([]byte{0x01}, fields...),
		"cut":           append([]byte{0x00}, fields[:len(fields)-2]...),
		"trailing byte": append(append([]byte{0x00}, fields...), 0),
		"empty":         nil,
	} {
		if _, err := ParseHandshake(body); !errors.As(err, new(*ProtocolError)) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
