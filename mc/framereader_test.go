package mc

import (
	"bytes"
	"io"
	"testing"
)

func TestFrameReaderGrowsAndSplitsBatches(t *testing.T) {
	big := AppendFrame(nil, 0x3F, bytes.Repeat([]byte{7}, 1000))
	small := AppendFrame(nil, 0x03, []byte{1})
	stream := append(append(append([]byte(nil), small...), big...), small...)
	r := NewFrameReader(bytes.NewReader(stream), 16)
	var got [][]byte
	for {
		frame, _, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, bytes.Clone(frame))
	}
	if len(got) != 3 || !bytes.Equal(got[1], big) || !bytes.Equal(got[2], small) {
		t.Errorf("frames %d, want small, big, small", len(got))
	}
}

func TestFrameReaderEndInsideFrame(t *testing.T) {
	frame := AppendFrame(nil, 0x3F, make([]byte, 50))
	r := NewFrameReader(bytes.NewReader(frame[:20]), 64)
	if _, _, err := r.ReadFrame(); err != io.ErrUnexpectedEOF {
		t.Errorf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}
