package loop

import (
	"io"
	"testing"
	"time"
)

// TestSteadyStateRelayZeroAllocs: once a session runs, relaying a batch each way allocates nothing,
// in the loop or in the test's own socket calls (AllocsPerRun counts the whole process), for a
// plain side and a framed one whose batches are sealed both in place and into out, with the
// timer wheel turning (its keepalive is armed, an hour away: pings would land among the frames
// the player counts).
func TestSteadyStateRelayZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own; the non-race pass runs this")
	}
	for _, tc := range []struct {
		name  string
		codec func() Codec
		size  int
	}{
		{"plain", func() Codec { return nil }, 1024},
		{"framed in place", func() Codec { return &tickingCodec{period: time.Hour, deadAfter: 1 << 30} }, 200},
		{"framed into out", func() Codec { return &tickingCodec{period: time.Hour, deadAfter: 1 << 30} }, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, Config{Loops: 1, Tick: time.Millisecond})
			p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = tc.codec() })
			framed := tc.codec() != nil
			up, down := frameOf(tc.size, framed), make([]byte, tc.size)
			got, want := make([]byte, 2*tc.size), len(up)
			roundTrip := func() {
				p.player.Write(up)
				if _, err := io.ReadFull(p.backend, got[:tc.size]); err != nil {
					t.Fatal(err)
				}
				p.backend.Write(down)
				if _, err := io.ReadFull(p.player, got[:want]); err != nil {
					t.Fatal(err)
				}
			}
			for range 200 {
				roundTrip()
			}
			if a := testing.AllocsPerRun(2000, roundTrip); a != 0 {
				t.Errorf("%v allocations per round trip", a)
			}
		})
	}
}

// frameOf is size stream bytes as the client sends them: framed in frames of up to 255 bytes,
// or plain.
func frameOf(size int, framed bool) []byte {
	if !framed {
		return make([]byte, size)
	}
	var w []byte
	for size > 0 {
		k := min(size, 255)
		w = append(append(w, byte(k)), make([]byte, k)...)
		size -= k
	}
	return w
}
