package auth

import (
	"crypto/cipher"
	"time"

	"github.com/moonbridge/moonbridge/loop"
)

// LoopCodec is the player's side of an online session on an event loop: the Minecraft stream
// under the side's own codec (plain TCP, WebSocket, TLS) is AES/CFB8, both ways. It decrypts
// what the inner codec opened and encrypts the stream before the inner codec seals it, in place,
// with no allocation. Control bytes of the inner codec (pings, close frames, TLS alerts) are not
// part of the stream and pass as they are.
type LoopCodec struct {
	inner    loop.Codec
	enc, dec cipher.Stream
}

// NewLoopCodec wraps inner (nil: plain TCP) with the player's cipher. The result implements the
// loop's optional interfaces exactly when inner does (NoHalfClose is a marker, so a wrapper of a
// codec with it is a type of its own).
func NewLoopCodec(inner loop.Codec, enc, dec cipher.Stream) loop.Codec {
	if inner == nil {
		inner = loop.Identity{}
	}
	c := &LoopCodec{inner: inner, enc: enc, dec: dec}
	if _, ok := inner.(loop.NoHalfClose); ok {
		return oneWayLoopCodec{c}
	}
	return c
}

func (c *LoopCodec) Open(in []byte) (int, []byte, error) {
	n, reply, err := c.inner.Open(in)
	c.dec.XORKeyStream(in[:n], in[:n])
	return n, reply, err
}

func (c *LoopCodec) Seal(buf []byte, start int, out []byte) ([]byte, error) {
	c.enc.XORKeyStream(buf[start:], buf[start:])
	return c.inner.Seal(buf, start, out)
}

func (c *LoopCodec) CloseWrite() []byte { return c.inner.CloseWrite() }

// End passes on the inner codec's last words (loop.Ender); nil when it has none.
func (c *LoopCodec) End(reason error) []byte {
	if e, ok := c.inner.(loop.Ender); ok {
		return e.End(reason)
	}
	return nil
}

// Growth passes on the inner codec's (loop.Grower): the cipher itself adds no bytes.
func (c *LoopCodec) Growth() int {
	if g, ok := c.inner.(loop.Grower); ok {
		return g.Growth()
	}
	return 0
}

// Period passes on the inner codec's ticks (loop.Ticker); 0 (no ticks) when it has none.
func (c *LoopCodec) Period() time.Duration {
	if t, ok := c.inner.(loop.Ticker); ok {
		return t.Period()
	}
	return 0
}

func (c *LoopCodec) Tick(st loop.TickState) ([]byte, error) {
	return c.inner.(loop.Ticker).Tick(st) // only called when Period is above 0
}

// oneWayLoopCodec is a LoopCodec over a codec whose stream cannot stay open one way.
type oneWayLoopCodec struct{ *LoopCodec }

func (oneWayLoopCodec) NoHalfClose() {}
