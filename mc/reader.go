package mc

import (
	"bufio"
	"errors"
	"io"
)

// ReadParsed runs parse, a parser of this package's kind (ErrNeedMore while
// the bytes are a valid beginning), over the bytes r holds, reading more
// only while parse answers ErrNeedMore, and then consumes the bytes parse
// used. Asking bufio for one byte more than parse has seen makes it issue a
// single read that takes whatever the peer has sent, so the first call sees
// exactly the connection's first read. Parsers bound their own input, so
// the loop ends.
func ReadParsed[T any](r *bufio.Reader, parse func([]byte) (T, int, error)) (T, error) {
	v, n, err := PeekParsed(r, parse)
	if err == nil {
		_, _ = r.Discard(n) // n <= what is buffered
	}
	return v, err
}

// PeekParsed is ReadParsed without taking the bytes from r: they stay buffered for the next
// reader (the relay reads Login Start before the backend it hands them to is dialled), and n
// says how many the value took.
func PeekParsed[T any](r *bufio.Reader, parse func([]byte) (T, int, error)) (v T, n int, err error) {
	var zero T
	for want := 1; ; {
		if _, err := r.Peek(want); err != nil {
			return zero, 0, peekError(err, r.Buffered())
		}
		buf, _ := r.Peek(r.Buffered())
		v, n, err := parse(buf)
		switch {
		case err == ErrNeedMore:
			want = len(buf) + 1
		case err != nil:
			return zero, 0, err
		default:
			return v, n, nil
		}
	}
}

// peekError says why bytes stopped coming before a parse could finish.
func peekError(err error, buffered int) error {
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return protocolError("reader", buffered, ErrTooLarge)
	case err == io.EOF && buffered > 0:
		return io.ErrUnexpectedEOF
	}
	return err
}
