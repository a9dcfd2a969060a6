package auth_test

import (
	"bytes"
	"crypto/cipher"
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
