package auth_test

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/cfb8"
	"github.com/moonbridge/moonbridge/ws"
)

// cipherMarshaler is what a moving session asks of its player codec.
type cipherMarshaler interface {
	MarshalCipher() ([]byte, error)
	Inner() loop.Codec
}

// TestLoopCodecMovesCipher: a LoopCodec's cipher state, taken mid-stream (an odd number of
// bytes each way) and put under a new LoopCodec, carries both directions on exactly, over plain
// TCP and over a WebSocket (whose wrapper is a type of its own).
func TestLoopCodecMovesCipher(t *testing.T) {
	inners := map[string]func() loop.Codec{
		"plain": func() loop.Codec { return nil },
		"ws":    func() loop.Codec { return ws.NewLoopCodec(ws.NewLoopState(ws.Config{PingInterval: time.Second}), nil) },
	}
	for name, inner := range inners {
		t.Run(name, func(t *testing.T) {
			enc, dec, playerEnc, playerDec := pairs(t)
			old := auth.NewLoopCodec(inner(), enc, dec).(cipherMarshaler)
			if name == "plain" {
				exchange(t, old.(loop.Codec), playerEnc, playerDec, 37)
			}
			state, err := old.MarshalCipher()
			if err != nil {
				t.Fatal(err)
			}
			moved, err := auth.UnmarshalLoopCodec(old.Inner(), cfb8.ImplGo, state)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := moved.(loop.NoHalfClose); ok != (name == "ws") {
				t.Fatalf("the moved codec's NoHalfClose is %v over %s", ok, name)
			}
			if name == "plain" {
				exchange(t, moved, playerEnc, playerDec, 1001)
			}
		})
	}
}

// exchange runs n bytes each way through c against the player's ciphers.
func exchange(t *testing.T, c loop.Codec, playerEnc, playerDec cipher.Stream, n int) {
	t.Helper()
	msg := bytes.Repeat([]byte("moonbridge"), n/10+1)[:n]
	wire := bytes.Clone(msg)
	playerEnc.XORKeyStream(wire, wire)
	if got, _, err := c.Open(wire); got != n || err != nil || !bytes.Equal(wire, msg) {
		t.Fatalf("open: %d bytes, %v, plaintext %v", got, err, bytes.Equal(wire, msg))
	}
	out, err := c.Seal(append(make([]byte, loop.Headroom), msg...), loop.Headroom, nil)
	if err != nil {
		t.Fatal(err)
	}
	playerDec.XORKeyStream(out, out)
	if !bytes.Equal(out, msg) {
		t.Fatal("seal: not the plaintext once the player decrypts")
	}
}

// TestUnmarshalLoopCodecRefuses: a state of the wrong length is an error, not a codec.
func TestUnmarshalLoopCodecRefuses(t *testing.T) {
	_, err := auth.UnmarshalLoopCodec(nil, cfb8.ImplGo, make([]byte, 63))
	var bad *auth.CipherStateError
	if !errors.As(err, &bad) {
		t.Fatalf("63 bytes: %v, want a CipherStateError", err)
	}
}
