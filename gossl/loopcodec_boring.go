//go:build boringssl && cgo

package gossl

import (
	"io"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// boringLoopCodec drives a BoringSSL engine from an event loop. Between calls it holds nothing
// but the engine: BoringSSL frees its record buffers once a record is consumed (a partial
// record stays there, in a buffer of its length), and a reply lives only until the next Open.
type boringLoopCodec struct {
	eng   *boring.Engine
	reply []byte
}

func newBoringLoopCodec(eng *boring.Engine) *boringLoopCodec { return &boringLoopCodec{eng: eng} }

// Growth: a record begun in an earlier read opens to at most one record's plaintext more.
func (c *boringLoopCodec) Growth() int { return boring.MaxPlaintext }

// Open opens every complete record of in, in place, with one cgo call. What the engine answers
// (an alert, a KeyUpdate) is the reply: a second call, only then.
func (c *boringLoopCodec) Open(in []byte) (int, []byte, error) {
	c.reply = nil
	res := c.eng.OpenInPlace(in[:cap(in)], len(in))
	var err error
	switch {
	case res.Status == boring.Closed:
		err = io.EOF
	case res.Status == boring.Fatal:
		err = &TLSError{Op: "read", Reason: res.Reason}
	case res.Consumed < len(in) || res.PlainPending > 0:
		err = ErrOpenOverflow
	}
	if res.OutPending > 0 {
		c.reply = make([]byte, res.OutPending)
		c.reply = c.reply[:c.eng.Drain(c.reply).Produced]
	}
	return res.Produced, c.reply, err
}

// Seal seals buf[start:] into out with one cgo call, in records of up to 16 KiB.
func (c *boringLoopCodec) Seal(buf []byte, start int, out []byte) ([]byte, error) {
	stream := buf[start:]
	if len(out) < boring.SealBound(len(stream)) {
		return nil, ErrSealOverflow
	}
	res := c.eng.Seal(stream, out)
	switch {
	case res.Status == boring.Fatal:
		return nil, &TLSError{Op: "write", Reason: res.Reason}
	case res.OutPending > 0 || res.Consumed < len(stream):
		return nil, ErrSealOverflow
	}
	return out[:res.Produced], nil
}

// CloseWrite is close_notify.
func (c *boringLoopCodec) CloseWrite() []byte {
	out := make([]byte, 2*boring.SealBound(2)) // an alert is 2 bytes of plaintext
	res := c.eng.Shutdown(out)
	if res.Status == boring.Fatal {
		return nil
	}
	return out[:res.Produced]
}

func (c *boringLoopCodec) Free() { c.eng.Free() }
