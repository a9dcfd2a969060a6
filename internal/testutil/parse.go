package testutil

import (
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
)

// The checks below are for parsers of a connection's first bytes (package mc's, the relay's
// PROXY header): they take the bytes received so far and answer with a value and how many bytes
// it used, with needMore while the bytes are a valid beginning, or with a typed error E that
// points into the input.

// Unhex turns wire bytes written as spaced hex ("0f 00 2f") into bytes.
func Unhex(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// CheckPrefixesNeedMore asserts that parse, which accepts whole, answers needMore on every
// strict prefix of whole: valid input is never refused for having arrived in pieces.
func CheckPrefixesNeedMore[T any](t testing.TB, whole []byte, parse func([]byte) (T, int, error), needMore error) {
	t.Helper()
	for k := range len(whole) {
		if _, _, err := parse(whole[:k]); err != needMore {
			t.Fatalf("prefix % x of % x: %v, want %v", whole[:k], whole, err, needMore)
		}
	}
}

// CheckParseResult asserts what every parser promises: a count within the input on success,
// nothing consumed otherwise, and errors other than needMore of type E, whose offset points
// into the input.
func CheckParseResult[E error](t testing.TB, in []byte, n int, err, needMore error, offset func(E) int) {
	t.Helper()
	var typed E
	switch {
	case err == nil && (n < 1 || n > len(in)):
		t.Fatalf("consumed %d of %d bytes", n, len(in))
	case err == nil:
	case n != 0:
		t.Fatalf("consumed %d bytes with error %v", n, err)
	case err == needMore:
	case !errors.As(err, &typed):
		t.Fatalf("error %v (%T) is not a %T", err, err, typed)
	case offset(typed) < 0 || offset(typed) > len(in):
		t.Fatalf("error offset %d outside the input of %d bytes", offset(typed), len(in))
	}
}

// ChunkReader returns one chunk per Read, like a peer's separate writes.
type ChunkReader struct{ Chunks [][]byte }

func (r *ChunkReader) Read(p []byte) (int, error) {
	if len(r.Chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.Chunks[0])
	if r.Chunks[0] = r.Chunks[0][n:]; len(r.Chunks[0]) == 0 {
		r.Chunks = r.Chunks[1:]
	}
	return n, nil
}
