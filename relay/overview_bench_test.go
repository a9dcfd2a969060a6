package relay

import (
	"strconv"
	"sync/atomic"
	"testing"
)

// The dashboard's overview sums the bytes of every running session under the server's lock,
// which accepts and session ends also take: how long it holds it with many sessions.
func BenchmarkOverviewRelayedNow(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(strconv.Itoa(n)+"_sessions", func(b *testing.B) {
			s := &Server{sessions: map[*session]struct{}{}}
			var up, down atomic.Int64 // what a loop session's Bytes reads
			for range n {
				sess := &session{}
				sess.start(func() (int64, int64) { return up.Load(), down.Load() })
				s.sessions[sess] = struct{}{}
			}
			for b.Loop() {
				s.relayedNow()
			}
		})
	}
}
