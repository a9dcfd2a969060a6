package client

import (
	"bytes"
	"io"
	"testing"

	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// bufferStream is a Stream over a buffer, for the cipher alone.
type bufferStream struct{ bytes.Buffer }

func (*bufferStream) Close() error { return nil }

func cipherPair(t *testing.T, under Stream) *cipherStream {
	key := []byte("0123456789abcdef")
	enc, dec, err := cfb8.NewAESPair(key)
	if err != nil {
		t.Fatal(err)
	}
	return &cipherStream{Stream: under, enc: enc, dec: dec}
}

// TestCipherStreamRoundTrip: what a cipherStream writes, one with the same key reads back; the
// caller's bytes (a profile's template, written again and again) stay as they were.
func TestCipherStreamRoundTrip(t *testing.T) {
	var wire bufferStream
	w, r := cipherPair(t, &wire), cipherPair(t, &wire)
	template := []byte("a frame the profile writes every tick")
	want := bytes.Repeat(template, 3)
	for range 3 {
		w.Write(template)
	}
	if bytes.Contains(wire.Bytes(), template) {
		t.Fatal("the wire carries plaintext")
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) || string(template) != "a frame the profile writes every tick" {
		t.Fatalf("read back %q, %v; template now %q", got, err, template)
	}
}

// TestCipherStreamWriteZeroAllocs: the client's encryption, its own CPU in every online run,
// costs no allocation per write once its buffer has grown.
func TestCipherStreamWriteZeroAllocs(t *testing.T) {
	c := cipherPair(t, nopStream{})
	frame := make([]byte, 1500)
	if a := testing.AllocsPerRun(100, func() { c.Write(frame) }); a != 0 {
		t.Fatalf("%v allocations per write", a)
	}
}

type nopStream struct{}

func (nopStream) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopStream) Write(b []byte) (int, error) { return len(b), nil }
func (nopStream) Close() error                { return nil }
