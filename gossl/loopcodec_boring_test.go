//go:build boringssl && cgo

package gossl

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/loop"
)

// clientWrites are the sizes a client seals in the tests: records of every length class, and
// writes that span records.
var clientWrites = []int{1, 500, 16384, 20000, 3, 16383, 40000, 70000}

func clientData() [][]byte {
	ws := make([][]byte, len(clientWrites))
	for i, n := range clientWrites {
		ws[i] = pattern(n + i)
	}
	return ws
}

// TestLoopCodecOpensSplitRecords: a record stream split anywhere opens to the client's bytes,
// TLS 1.2 and 1.3, and close_notify at its end is io.EOF.
func TestLoopCodecOpensSplitRecords(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			for _, sizes := range [][]int{{1}, {7, 3}, {1000}, {16389}, {5, 16384, 22}, {48 << 10}} {
				codec, _, cc, rec := detached(t, v, layer)
				data := clientData()
				wire := sealed(t, cc, rec, data...)
				rec.start()
				if err := cc.CloseWrite(); err != nil {
					t.Fatal(err)
				}
				wire = append(wire, rec.take()...)
				plain, err := openAll(codec, wire, sizes)
				if want := bytes.Join(data, nil); err != io.EOF || !bytes.Equal(plain, want) {
					t.Fatalf("%s, pieces %v: %d bytes (equal %v), %v; want %d bytes and io.EOF",
						tls.VersionName(v), sizes, len(plain), bytes.Equal(plain, want), err, len(want))
				}
			}
		}
	})
}

// FuzzLoopCodecOpenSplits: the client's record stream, cut where the fuzzer says, opens to
// exactly what the client sent.
func FuzzLoopCodecOpenSplits(f *testing.F) {
	f.Add([]byte{1}, false)
	f.Add([]byte{200, 3, 64, 255}, true)
	f.Add([]byte{0, 17, 99}, false)
	f.Fuzz(func(t *testing.T, cuts []byte, tls12 bool) {
		v := uint16(tls.VersionTLS13)
		if tls12 {
			v = tls.VersionTLS12
		}
		sizes := []int{16 << 10}
		for i := 0; i+1 < len(cuts); i += 2 { // two bytes a piece: lengths up to 64 KiB
			sizes = append(sizes, int(cuts[i])<<8|int(cuts[i+1]))
		}
		for _, layer := range []RecordLayer{RecordLayerSSL, RecordLayerAEAD} {
			codec, _, cc, rec := detached(t, v, layer)
			data := clientData()
			plain, err := openAll(codec, sealed(t, cc, rec, data...), sizes)
			if want := bytes.Join(data, nil); err != nil || !bytes.Equal(plain, want) {
				t.Fatalf("%s, pieces %v: %d bytes (equal %v), %v; want %d bytes", layer, sizes,
					len(plain), bytes.Equal(plain, want), err, len(want))
			}
		}
	})
}

// TestLoopCodecCorruptRecordIsBadRecordMAC: a changed byte ends the session with a TLS error,
// and the reply is the bad_record_mac alert the client then reads.
func TestLoopCodecCorruptRecordIsBadRecordMAC(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		codec, raw, cc, rec := detached(t, 0, layer)
		wire := sealed(t, cc, rec, pattern(300))
		wire[len(wire)/2] ^= 0x40
		in := make([]byte, len(wire), len(wire)+codec.Growth())
		copy(in, wire)
		n, reply, err := codec.Open(in)
		var te *TLSError
		if !errors.As(err, &te) || te.Op != "read" || n != 0 || len(reply) == 0 {
			t.Fatalf("Open: %d bytes, %d reply bytes, %v; want a TLS read error and an alert", n, len(reply), err)
		}
		if _, err := raw.Write(reply); err != nil {
			t.Fatal(err)
		}
		if _, err := cc.Read(make([]byte, 1)); err == nil || !strings.Contains(err.Error(), "bad record MAC") {
			t.Fatalf("client read: %v, want the bad_record_mac alert", err)
		}
	})
}

// TestLoopCodecSealsAndClosesForTheClient: a batch sealed into the loop's out buffer, and then
// CloseWrite's close_notify, reach the client as the batch and io.EOF.
func TestLoopCodecSealsAndClosesForTheClient(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		codec, raw, cc, _ := detached(t, 0, layer)
		const bufferSize = 64 << 10
		batch := pattern(bufferSize)
		buf := append(make([]byte, loop.Headroom), batch...)
		out := make([]byte, loop.Headroom+bufferSize+loop.SealSlack)
		wire, err := codec.Seal(buf, loop.Headroom, out)
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = raw.Write(append(wire, codec.CloseWrite()...)) }()
		got, err := io.ReadAll(cc)
		if err != nil || !bytes.Equal(got, batch) {
			t.Fatalf("client read %d bytes (equal %v), %v; want %d and io.EOF", len(got), bytes.Equal(got, batch), err, len(batch))
		}
		if _, err := codec.Seal(buf, loop.Headroom, out[:bufferSize]); err != ErrSealOverflow {
			t.Fatalf("Seal into a short out: %v, want ErrSealOverflow", err)
		}
	})
}

// TestLoopCodecOneCgoCallPerOpenAndSeal: an Open of several records and a Seal of a 64 KiB batch
// are one cgo call each (counted as TestBoringOneCgoCallPerBatchWrite does: the fewest seen).
func TestLoopCodecOneCgoCallPerOpenAndSeal(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		codec, _, cc, rec := detached(t, 0, layer)
		buf := make([]byte, loop.Headroom+64<<10)
		out := make([]byte, len(buf)+loop.SealSlack)
		opens, seals := int64(math.MaxInt64), int64(math.MaxInt64)
		for range 5 {
			wire := sealed(t, cc, rec, pattern(100), pattern(20000), pattern(7))
			in := append(make([]byte, 0, len(wire)+codec.Growth()), wire...)
			calls := runtime.NumCgoCall()
			if n, _, err := codec.Open(in); err != nil || n != 20107 {
				t.Fatalf("Open: %d bytes, %v", n, err)
			}
			opens = min(opens, runtime.NumCgoCall()-calls)
			calls = runtime.NumCgoCall()
			if _, err := codec.Seal(buf, loop.Headroom, out); err != nil {
				t.Fatal(err)
			}
			seals = min(seals, runtime.NumCgoCall()-calls)
		}
		if opens != 1 || seals != 1 {
			t.Fatalf("Open of 3 records: %d cgo calls, Seal of 64 KiB: %d; want 1 each", opens, seals)
		}
	})
}

// TestLoopCodecZeroAllocsPerOpenAndSeal: steady-state Open and Seal allocate nothing (they use
// no pool, so this holds under -race too).
func TestLoopCodecZeroAllocsPerOpenAndSeal(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		codec, _, cc, rec := detached(t, 0, layer)
		const runs = 50
		var wires [][]byte
		for range runs + 1 { // AllocsPerRun runs once more to warm up
			wires = append(wires, sealed(t, cc, rec, pattern(1000), pattern(17000)))
		}
		in := make([]byte, 0, 64<<10)
		next := 0
		if allocs := testing.AllocsPerRun(runs, func() {
			_, _, _ = codec.Open(append(in[:0], wires[next]...))
			next++
		}); allocs != 0 {
			t.Errorf("Open: %.1f allocations, want 0", allocs)
		}
		buf := make([]byte, loop.Headroom+64<<10)
		out := make([]byte, len(buf)+loop.SealSlack)
		if allocs := testing.AllocsPerRun(runs, func() { _, _ = codec.Seal(buf, loop.Headroom, out) }); allocs != 0 {
			t.Errorf("Seal: %.1f allocations, want 0", allocs)
		}
	})
}

// TestDetachBusy: a connection with a Read under way is not detached.
func TestDetachBusy(t *testing.T) {
	sc, _, _ := handshaken(t, 0, RecordLayerSSL)
	sc.rmu.Lock()
	_, _, _, err := DetachBoring(sc)
	sc.rmu.Unlock()
	if err != ErrConnBusy {
		t.Fatalf("DetachBoring during a read: %v, want ErrConnBusy", err)
	}
}
