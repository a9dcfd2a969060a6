package pipe

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// closeCounter counts Close calls on a source.
type closeCounter struct {
	Source
	closes int
}

func (c *closeCounter) Close() { c.closes++; c.Source.Close() }

func TestPumpOneWritePerRead(t *testing.T) {
	chunks := [][]byte{[]byte("abc"), []byte("defgh"), []byte("i")}
	src := &closeCounter{Source: ReaderSource(&testutil.ChunkReader{Chunks: chunks}, 64)}
	var writes [][]byte
	p := &Pump{Source: src, Write: func(buf []byte, n int) error {
		writes = append(writes, bytes.Clone(buf[:n]))
		return nil
	}}
	p.Bytes.Store(10) // bytes sent before the pump started
	if err := p.Run(); err != io.EOF {
		t.Fatalf("Run = %v, want io.EOF", err)
	}
	if len(writes) != 3 || string(bytes.Join(writes, nil)) != "abcdefghi" {
		t.Errorf("writes %q, want one per read", writes)
	}
	if p.Bytes.Load() != 19 || src.closes != 1 {
		t.Errorf("Bytes %d, closes %d; want 19, 1", p.Bytes.Load(), src.closes)
	}
}

func TestPumpWriteAndReadErrors(t *testing.T) {
	broken := errors.New("broken pipe")
	p := &Pump{Source: ReaderSource(bytes.NewReader([]byte("x")), 8), Write: func([]byte, int) error { return broken }}
	err := p.Run()
	var we *WriteError
	if !errors.As(err, &we) || we.Err != broken || err.Error() != "write: broken pipe" || p.Bytes.Load() != 0 {
		t.Errorf("failed write: %v (Bytes %d), want a *WriteError of it", err, p.Bytes.Load())
	}
	a, b := net.Pipe()
	a.Close()
	p = &Pump{Source: ReaderSource(a, 8), Write: func([]byte, int) error { return nil }}
	if err := p.Run(); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("read on a closed conn: %v, want the read error as is", err)
	}
	b.Close()
}

func TestSideError(t *testing.T) {
	err := &SideError{Side: "backend", Err: &WriteError{Err: io.ErrUnexpectedEOF}}
	if err.Error() != "backend: write: unexpected EOF" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("SideError %q does not name the side or unwrap", err)
	}
}
