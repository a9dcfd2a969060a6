package play

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"sync"
)

// A compressed frame's data is a zlib stream (RFC 1950): a 2-byte header, deflate data, and an
// Adler-32 of the whole that the tracker never reaches.
//
//	CMF  0x78 typically: method 8 (deflate) in the low nibble, window size in the high one
//	FLG  check bits making CMF<<8|FLG a multiple of 31; bit 5: a preset dictionary follows
//	     (Minecraft sets none)

var errZlibHeader = errors.New("not a zlib header for deflate without a dictionary")

// inflater is a deflate reader and the reader of compressed bytes it reads from.
type inflater struct {
	r   io.ReadCloser
	src bytes.Reader
}

// inflaters are shared by every tracker: each holds a 32 KiB window, which a tracker needs only
// while it reads the first bytes of a compressed frame.
var inflaters = sync.Pool{New: func() any {
	f := &inflater{}
	f.r = flate.NewReader(&f.src)
	return f
}}

// inflatePrefix decompresses into out the first len(out) bytes of the zlib stream that comp
// starts, with a pooled inflater (a frame costs no allocation of its own). Short of them it
// returns how many it got and why: io.ErrUnexpectedEOF or io.EOF when comp ends first, another
// error when the stream is not valid.
func inflatePrefix(comp, out []byte) (int, error) {
	if len(comp) < 2 {
		return 0, io.ErrUnexpectedEOF
	}
	cmf, flg := comp[0], comp[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || (uint16(cmf)<<8|uint16(flg))%31 != 0 || flg&0x20 != 0 {
		return 0, errZlibHeader
	}
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.src.Reset(comp[2:])
	_ = f.r.(flate.Resetter).Reset(&f.src, nil) // fails only for a bad dictionary
	return io.ReadFull(f.r, out)
}
