//go:build boringssl && cgo

package gossl

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkLoopCodecOpen: the loop's Open of one read of count records of size bytes, in place
// (mb_open_inplace, what LoopCodec does) against into a scratch buffer and copied to the front
// of the read (mb_open, the alternative), with the SSL record layer; inplace-aead is the in-place
// Open with the AEAD record layer. The client's sealing is done beforehand, untimed.
func BenchmarkLoopCodecOpen(b *testing.B) {
	for _, shape := range [][2]int{{1, 64}, {1, 1350}, {24, 1350}, {1, 16 << 10}, {3, 16 << 10}} {
		count, size := shape[0], shape[1]
		for _, inPlace := range []bool{true, false} {
			name := fmt.Sprintf("%dx%d/scratch", count, size)
			if inPlace {
				name = fmt.Sprintf("%dx%d/inplace", count, size)
			}
			b.Run(name, func(b *testing.B) { benchLoopOpen(b, count, size, inPlace, RecordLayerSSL) })
		}
		b.Run(fmt.Sprintf("%dx%d/inplace-aead", count, size), func(b *testing.B) {
			benchLoopOpen(b, count, size, true, RecordLayerAEAD)
		})
	}
}

func benchLoopOpen(b *testing.B, count, size int, inPlace bool, layer RecordLayer) {
	in := make([]byte, 0, 64<<10)
	scratch := make([]byte, 64<<10)
	data := pattern(size)
	b.SetBytes(int64(count * size))
	b.ReportAllocs()
	for left := b.N; left > 0; {
		b.StopTimer()
		codec, _, cc, rec := detached(b, 0, layer)
		eng := codec.(*boringLoopCodec).eng
		reads := min(left, max(1, (4<<20)/(count*size)))
		wires := make([][]byte, reads)
		for i := range wires {
			rec.start()
			for range count {
				if _, err := cc.Write(data); err != nil {
					b.Fatal(err)
				}
			}
			wires[i] = rec.take()
		}
		runtime.GC()
		b.StartTimer()
		for _, wire := range wires {
			in = append(in[:0], wire...) // the socket read, the same for both
			if inPlace {
				_, _, _ = codec.Open(in)
			} else {
				copy(in, scratch[:eng.Open(in, scratch).Produced])
			}
		}
		left -= reads
	}
}
