package relay

import (
	"encoding/hex"
	"io"
	"strings"
	"testing"
)

// unhex turns wire bytes written as spaced hex ("0f 00 2f") into bytes.
func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// checkPrefixesNeedMore asserts that parse, which accepts whole, asks for
// more bytes on every strict prefix of whole: valid input is never refused
// for having arrived in pieces.
func checkPrefixesNeedMore[T any](t *testing.T, whole []byte, parse func([]byte) (T, int, error)) {
	t.Helper()
	for k := range len(whole) {
		if _, _, err := parse(whole[:k]); err != ErrNeedMore {
			t.Fatalf("prefix % x of % x: %v, want ErrNeedMore", whole[:k], whole, err)
		}
	}
}

// chunkReader returns one chunk per Read, like a peer's separate writes.
type chunkReader struct{ chunks [][]byte }

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	if r.chunks[0] = r.chunks[0][n:]; len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}
