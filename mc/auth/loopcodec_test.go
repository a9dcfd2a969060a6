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

var secret = []byte("0123456789abcdef")

// pairs returns the proxy's and the player's ciphers of one secret.
func pairs(t *testing.T) (proxyEnc, proxyDec, playerEnc, playerDec cipher.Stream) {
	proxyEnc, proxyDec, err := cfb8.NewAESPair(secret)
	if err != nil {
		t.Fatal(err)
	}
	playerEnc, playerDec, _ = cfb8.NewAESPair(secret)
	return
}

// TestLoopCodecPlain: over plain TCP, Open decrypts what the player encrypted and Seal encrypts
// for the player, across many calls (the streams carry on).
func TestLoopCodecPlain(t *testing.T) {
	enc, dec, playerEnc, playerDec := pairs(t)
	c := auth.NewLoopCodec(nil, enc, dec)
	for i := range 5 {
		msg := bytes.Repeat([]byte{byte(i)}, 100+i*1000)
		wire := bytes.Clone(msg)
		playerEnc.XORKeyStream(wire, wire)
		n, reply, err := c.Open(wire)
		if n != len(msg) || reply != nil || err != nil || !bytes.Equal(wire[:n], msg) {
			t.Fatalf("open %d: n %d err %v, not the plaintext", i, n, err)
		}
		buf := append(make([]byte, loop.Headroom), msg...)
		out, err := c.Seal(buf, loop.Headroom, nil)
		if err != nil {
			t.Fatal(err)
		}
		playerDec.XORKeyStream(out, out)
		if !bytes.Equal(out, msg) {
			t.Fatalf("seal %d: not the plaintext once decrypted", i)
		}
	}
}

// TestLoopCodecWraps: over a WebSocket the wrapper is what the loop asks for in the inner codec
// (no half close, ticks, last words), and over plain TCP it is none of them.
func TestLoopCodecWraps(t *testing.T) {
	enc, dec, _, _ := pairs(t)
	overWS := func() loop.Codec {
		return auth.NewLoopCodec(ws.NewLoopCodec(ws.NewLoopState(ws.Config{PingInterval: time.Second}), nil), enc, dec)
	}
	if _, ok := overWS().(loop.NoHalfClose); !ok {
		t.Fatal("over a WebSocket: no NoHalfClose")
	}
	if overWS().(loop.Ticker).Period() != time.Second/2 || overWS().(loop.Ender).End(nil) == nil || overWS().CloseWrite() == nil {
		t.Fatal("over a WebSocket: the keepalive, last words or close frame are lost")
	}
	plain := auth.NewLoopCodec(nil, enc, dec)
	if _, ok := plain.(loop.NoHalfClose); ok {
		t.Fatal("plain TCP: NoHalfClose")
	}
	if plain.(loop.Ticker).Period() != 0 || plain.(loop.Grower).Growth() != 0 || plain.(loop.Ender).End(nil) != nil {
		t.Fatal("plain TCP: ticks, growth or last words")
	}
}

// TestLoopCodecZeroAllocs: a steady stream costs no allocation per batch either way.
func TestLoopCodecZeroAllocs(t *testing.T) {
	enc, dec, _, _ := pairs(t)
	c := auth.NewLoopCodec(nil, enc, dec)
	buf := make([]byte, loop.Headroom+16<<10)
	if a := testing.AllocsPerRun(100, func() {
		c.Open(buf[loop.Headroom:])
		c.Seal(buf, loop.Headroom, nil)
	}); a != 0 {
		t.Fatalf("%v allocations per batch", a)
	}
}

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
			movedEnc, movedDec, err := auth.UnmarshalCipher(cfb8.ImplGo, state)
			if err != nil {
				t.Fatal(err)
			}
			moved := auth.NewLoopCodec(old.Inner(), movedEnc, movedDec)
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

// TestUnmarshalCipherRefuses: a state of the wrong length is an error, not a cipher.
func TestUnmarshalCipherRefuses(t *testing.T) {
	_, _, err := auth.UnmarshalCipher(cfb8.ImplGo, make([]byte, 63))
	var bad *auth.CipherStateError
	if !errors.As(err, &bad) {
		t.Fatalf("63 bytes: %v, want a CipherStateError", err)
	}
}
