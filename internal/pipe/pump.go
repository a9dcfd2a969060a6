package pipe

import (
	"io"
	"sync/atomic"
)

// Source is where a Pump reads. Next returns the next batch: n bytes in *buf, at the offset the
// source and its pump's Write agree on (the relay leaves headroom in front for a WebSocket
// header). *buf stays valid until the next call; buf may be nil when n is 0. Close gives back
// what the source holds.
type Source interface {
	Next() (buf *[]byte, n int, err error)
	Close()
}

// Pump moves one direction of a session: each read is followed by exactly one write of what it
// read, and the next read waits until that write returned, so a slow reader on the far side
// holds back this side (at most one buffer in flight per direction), and what arrived together
// leaves together.
type Pump struct {
	Source Source
	Write  func(buf []byte, n int) error // gets *buf and n from Source.Next
	Bytes  atomic.Int64                  // bytes written on so far; a caller may start it
}

// Run copies until the source ends or a write fails, then closes the source. It returns the
// read error that ended the source (io.EOF for a clean end) or a *WriteError; which of those
// is a failure, and whose, is the caller's to say.
func (p *Pump) Run() error {
	defer p.Source.Close()
	for {
		buf, n, err := p.Source.Next()
		if n > 0 {
			if werr := p.Write(*buf, n); werr != nil {
				return &WriteError{Err: werr}
			}
			p.Bytes.Add(int64(n))
		}
		if err != nil {
			return err
		}
	}
}

// WriteError is a failed write to the far side of a pump (the side that was not read).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return "write: " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// ReaderSource reads r into one buffer of size bytes, each batch at its start.
func ReaderSource(r io.Reader, size int) Source {
	return &readerSource{r: r, buf: make([]byte, size)}
}

type readerSource struct {
	r   io.Reader
	buf []byte
}

func (s *readerSource) Next() (*[]byte, int, error) {
	n, err := s.r.Read(s.buf)
	return &s.buf, n, err
}

func (s *readerSource) Close() {}
