package relay

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
)

// pumpResult is how one direction of a session ended.
type pumpResult struct {
	err error // nil: the source ended cleanly (EOF, or closed by the other direction)
}

// pump moves one direction of a session: each read is followed by exactly one write of what it
// read, and the next read waits until that write returned, so a slow reader on the far side
// holds back this side (at most one buffer in flight per direction).
type pump struct {
	src   source
	write func(buf []byte, n int) error // buf[:headroom+n] with the payload at buf[headroom:]
	bytes atomic.Int64                  // bytes written on; the up pump starts from what the backend got first
}

// run copies until the source ends or a write fails.
func (p *pump) run() pumpResult {
	defer p.src.close()
	for {
		buf, n, err := p.src.next()
		if n > 0 {
			if werr := p.write(*buf, n); werr != nil {
				return pumpResult{err: &WriteError{Err: werr}}
			}
			p.bytes.Add(int64(n))
		}
		if err != nil {
			return endOf(err)
		}
	}
}

// WriteError is a failed write to the far side of a pump (the side that was not read).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return "write: " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

func endOf(err error) pumpResult {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return pumpResult{}
	}
	return pumpResult{err: err}
}
