package mc

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// cursor reads the fields of one frame body, which may not have fully
// arrived yet. A field that would run past the declared body size is
// ErrTruncated at once; one that runs past the bytes that have arrived is
// ErrNeedMore. So a parser rejects bad fields as soon as they are visible
// and asks for more only when every byte so far is valid. The first error
// sticks and later reads return zero values, which keeps parsers linear
// instead of checking after every field.
type cursor struct {
	buf   []byte // the body bytes that have arrived, at most size
	size  int    // the body size the frame declares
	pos   int
	base  int // offset of buf[0] in the parser's input, for error offsets
	layer string
	err   error
}

// newCursor reads the body of size bytes that starts at b[start:].
func newCursor(b []byte, start, size int, layer string) *cursor {
	end := min(len(b), start+size)
	return &cursor{buf: b[start:end], size: size, base: start, layer: layer}
}

// fail records the first fault at the current position.
func (c *cursor) fail(reason error) {
	if c.err == nil {
		c.err = protocolError(c.layer, c.base+c.pos, reason)
	}
}

// failAt records the first fault at pos, the start of the offending field.
func (c *cursor) failAt(pos int, reason error) {
	c.pos = pos
	c.fail(reason)
}

// needMore records that the frame has not fully arrived.
func (c *cursor) needMore() {
	if c.err == nil {
		c.err = ErrNeedMore
	}
}

func (c *cursor) take(n int) []byte {
	switch {
	case c.err != nil:
		return nil
	case n > c.size-c.pos:
		c.fail(ErrTruncated)
		return nil
	case n > len(c.buf)-c.pos:
		c.needMore()
		return nil
	}
	b := c.buf[c.pos : c.pos+n]
	c.pos += n
	return b
}

func (c *cursor) uint8() byte {
	if b := c.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (c *cursor) uint16() uint16 {
	if b := c.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (c *cursor) int32() int32 {
	if b := c.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (c *cursor) varInt() int32 {
	if c.err != nil {
		return 0
	}
	v, n, err := decodeVarInt(c.buf[c.pos:])
	switch {
	case err == ErrNeedMore && len(c.buf) < c.size:
		c.needMore()
	case err == ErrNeedMore:
		c.fail(ErrTruncated)
	case err != nil:
		c.fail(err)
	}
	c.pos += n
	return v
}

// utf8String reads a VarInt-prefixed UTF-8 string of at most maxBytes bytes,
// refusing the length before waiting for the bytes. Faults point at the
// field's start.
func (c *cursor) utf8String(maxBytes int, tooLong error) string {
	at := c.pos
	size := c.varInt()
	switch {
	case c.err != nil:
		return ""
	case size < 0:
		c.failAt(at, ErrMalformed)
		return ""
	case int(size) > maxBytes:
		c.failAt(at, tooLong)
		return ""
	}
	b := c.take(int(size))
	if c.err == nil && !utf8.Valid(b) {
		c.failAt(at, ErrBadEncoding)
	}
	return string(b)
}

// end checks that the body declares no bytes after its last field, which
// is known before those bytes arrive.
func (c *cursor) end() {
	if c.err == nil && c.pos != c.size {
		c.fail(ErrTrailingBytes)
	}
}

// packetID reads a packet id and checks it is one of want, returning it.
func (c *cursor) packetID(want ...int32) int32 {
	at := c.pos
	id := c.varInt()
	if c.err == nil && !slices.Contains(want, id) {
		c.failAt(at, ErrPacketID)
	}
	return id
}
