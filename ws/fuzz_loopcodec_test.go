package ws

import (
	"bytes"
	"io"
	"testing"
)

// FuzzLoopCodecOpen splits a client stream at arbitrary points through LoopCodec.Open: the
// payload stream, the pongs and the close are the naive reference decoder's (refDecode), as
// FuzzReadFrame checks them for Conn.Read.
func FuzzLoopCodecOpen(f *testing.F) {
	addReadSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte, seed uint64, maxPiece uint16) {
		checkPiecesAgainstReference(t, in, seed, maxPiece, nil)
	})
}

// checkPiecesAgainstReference feeds in to a codec in random pieces and checks the payload, the
// pongs and the end against the reference decoder's; between, when set, replaces the codec
// after each piece (FuzzLoopCodecMove moves it).
func checkPiecesAgainstReference(t *testing.T, in []byte, seed uint64, maxPiece uint16, between func(*LoopCodec) *LoopCodec) {
	want := refDecode(in, fuzzMaxFrame, fuzzMaxMsg)
	c := newTestCodec(fuzzConfig())
	var got, replies []byte
	var err error
	for _, piece := range splitRandomly(in, seed, 1+int(maxPiece%2000)) {
		buf := bytes.Clone(piece)
		var n int
		var reply []byte
		n, reply, err = c.Open(buf)
		got, replies = append(got, buf[:n]...), append(replies, reply...)
		if err != nil {
			break
		}
		if between != nil {
			c = between(c)
		}
	}
	if err == nil { // the end of the input, as Conn.Read names it
		err = c.innerEnd(io.EOF)
	}
	if !bytes.Equal(got, want.payload) {
		t.Fatalf("payload: got %d bytes, reference %d", len(got), len(want.payload))
	}
	frames := splitFrames(t, replies)
	checkReadEnd(t, err, want, frames)
	checkPongs(t, frames, want.pongs)
}

// checkPongs: the codec answers only the last ping of each Open (RFC 6455 5.5.3 allows it), so
// its pongs are a subsequence of the reference's and end with the reference's last.
func checkPongs(t *testing.T, frames []wireFrame, want [][]byte) {
	t.Helper()
	var last []byte
	i := 0
	for _, f := range frames {
		if f.op != OpPong {
			continue
		}
		for i < len(want) && !bytes.Equal(want[i], f.payload) {
			i++
		}
		if i == len(want) {
			t.Fatalf("pong %q answers no ping of the reference, in order", f.payload)
		}
		last, i = f.payload, i+1
	}
	if len(want) > 0 && (last == nil || !bytes.Equal(last, want[len(want)-1])) {
		t.Fatalf("last pong %q, want the last ping's %q", last, want[len(want)-1])
	}
}
