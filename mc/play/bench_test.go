package play

import (
	"bytes"
	"testing"

	"github.com/moonbridge/moonbridge/mc"
)

// BenchmarkTrackerPlay feeds play traffic at threshold 256 in 64 KiB reads: chunks (compressed,
// partly repetitive), entity moves (small, uncompressed) and bundles.
func BenchmarkTrackerPlay(b *testing.B) {
	login := frame(packet{mc.SetCompressionID, varInts(256)}, -1)
	login = append(login, frame(packet{mc.LoginSuccessID, nil}, 256)...)
	login = append(login, frame(packet{configFinish, nil}, 256)...)
	chunk := append(bytes.Repeat([]byte{0, 1, 2, 3}, 4000), noise(4000)...)
	var stream []byte
	for i := range 200 {
		stream = append(stream, frame(packet{playChunk, chunk}, 256)...)
		for range 20 {
			stream = append(stream, frame(packet{0x2F, noise(20)}, 256)...)
		}
		if i%10 == 0 {
			stream = append(stream, frame(packet{playBundle, nil}, 256)...)
			stream = append(stream, frame(packet{0x01, noise(300)}, 256)...)
			stream = append(stream, frame(packet{playBundle, nil}, 256)...)
		}
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		tr := newTracker(b)
		feedAll(b, tr, login)
		for rest := stream; len(rest) > 0; {
			n := min(len(rest), 64<<10)
			feedAll(b, tr, rest[:n])
			rest = rest[n:]
		}
	}
}
