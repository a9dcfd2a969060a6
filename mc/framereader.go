package mc

import "io"

// FrameReader splits a stream into frames one read at a time, so that a
// server can answer everything a single read delivered with a single write
// (one write per read batch, docs/design.md).
type FrameReader struct {
	r          io.Reader
	buf        []byte
	start, end int // buf[start:end] holds bytes read but not yet returned as frames
}

// NewFrameReader reads from r with a buffer of size bytes; it grows for
// frames that do not fit.
func NewFrameReader(r io.Reader, size int) *FrameReader {
	return &FrameReader{r: r, buf: make([]byte, size)}
}

// Next returns the next complete frame already read (prefix included; it aliases the buffer until
// the next Fill) and its body. ok is false when the buffered bytes end inside a frame.
func (r *FrameReader) Next() (frame, body []byte, ok bool, err error) {
	body, n, err := ReadFrame(r.buf[r.start:r.end], MaxFrameLen)
	if err == ErrNeedMore {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	frame = r.buf[r.start : r.start+n]
	r.start += n
	return frame, body, true, nil
}

// Fill performs one read after the bytes not yet returned, moving them to the front first and
// doubling the buffer when a frame is larger than it. io.EOF means the stream ended between
// frames.
func (r *FrameReader) Fill() error {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end == len(r.buf) {
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
	n, err := r.r.Read(r.buf[r.end:])
	r.end += n
	switch {
	case n > 0:
		return nil
	case err == io.EOF && r.end > r.start:
		return io.ErrUnexpectedEOF // the stream ended inside a frame
	}
	return err
}

// ReadFrame returns the next frame, reading as often as it takes.
func (r *FrameReader) ReadFrame() (frame, body []byte, err error) {
	for {
		frame, body, ok, err := r.Next()
		if ok || err != nil {
			return frame, body, err
		}
		if err := r.Fill(); err != nil {
			return nil, nil, err
		}
	}
}

// Buffered returns the bytes read but not yet returned as frames (a partial frame, or what
// follows the last frame a caller took), for a caller that hands the stream on.
func (r *FrameReader) Buffered() []byte { return r.buf[r.start:r.end] }
