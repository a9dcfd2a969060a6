//go:build boringssl && cgo

package gossl

import (
	"io"
	"math"
	"runtime"
	"testing"
)

// establishedBoring is establishedSession under BoringSSL, with its engine in reach.
func establishedBoring(t testing.TB, layer RecordLayer) (*boringConn, *countingConn, func(p []byte) error) {
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	sc, counted, send := establishedSession(t, withRecordLayer(p, layer))
	return sc.(*boringConn), counted, send
}

// TestBoringOneCgoCallPerBatchWrite: a 64 KiB WebSocket batch (plus its 14-byte header) is
// sealed by one cgo call and sent by one socket write.
//
// The engine keeps no call counter (that would cost every record something for a test): the
// process's own count, runtime.NumCgoCall, is read around each Write. Other goroutines can only
// add to it (a cleanup freeing another test's context, say), never take away, so the fewest
// calls seen over a few Writes is what one Write costs.
func TestBoringOneCgoCallPerBatchWrite(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		sc, counted, _ := establishedBoring(t, layer)
		batch := pattern(64<<10 + 14)
		fewest := int64(math.MaxInt64)
		for range 5 {
			calls, writes := runtime.NumCgoCall(), counted.count()
			if _, err := sc.Write(batch); err != nil {
				t.Fatal(err)
			}
			fewest = min(fewest, runtime.NumCgoCall()-calls)
			if got := counted.count() - writes; got != 1 {
				t.Errorf("a %d-byte Write made %d socket writes, want 1", len(batch), got)
			}
		}
		if fewest != 1 {
			t.Errorf("a %d-byte Write made at least %d cgo calls, want 1", len(batch), fewest)
		}
	})
}

// TestBoringZeroAllocsPerRecord: steady-state Write and Read allocate nothing.
func TestBoringZeroAllocsPerRecord(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers at random; run without -race")
	}
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		sc, send := boringDrainedRaw(t, layer)
		for _, n := range []int{64, 1350, 16 << 10, 64<<10 + 14} {
			batch := pattern(n)
			if allocs := testing.AllocsPerRun(50, func() { _, _ = sc.Write(batch) }); allocs != 0 {
				t.Errorf("Write of %d bytes: %.1f allocations, want 0", n, allocs)
			}
		}
		record := pattern(1000)
		go func() {
			for range 200 {
				if send(record) != nil {
					return
				}
			}
		}()
		buf := make([]byte, len(record))
		if allocs := testing.AllocsPerRun(100, func() { _, _ = sc.Read(buf) }); allocs != 0 {
			t.Errorf("Read: %.1f allocations, want 0", allocs)
		}
	})
}

// boringDrainedRaw is an established BoringSSL server connection whose client, once the
// handshake is done, is drained as a plain socket. testing.AllocsPerRun counts every goroutine's
// allocations, and crypto/tls's client allocates a little on each socket read it decrypts
// (seen: 3 per 64 KiB batch); draining the ciphertext undecrypted leaves only the server's own.
// send writes application data from the client, whose write side stays intact.
func boringDrainedRaw(t *testing.T, layer RecordLayer) (*boringConn, func(p []byte) error) {
	t.Helper()
	sc, cc, rec := handshaken(t, 0, layer)
	go io.Copy(io.Discard, rec.Conn) // ends when the test's cleanup closes the sockets
	return sc, func(p []byte) error { _, err := cc.Write(p); return err }
}
