package cfb8

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/boring"
	"github.com/moonbridge/moonbridge/mc/cfb8/cfb8test"
)

// forEachImpl runs a test under both CFB8 implementations; in a pure-Go build the boringssl
// row skips with its reason.
func forEachImpl(t *testing.T, test func(t *testing.T, newStream cfb8test.New)) {
	t.Helper()
	t.Run("go", func(t *testing.T) { test(t, New) })
	t.Run("boringssl", func(t *testing.T) {
		if !boring.Enabled {
			t.Skip("boringssl is not in this build (pure Go): run `make native` and test with -tags boringssl")
		}
		test(t, newBoring)
	})
}

func TestEachImplNIST(t *testing.T) { forEachImpl(t, cfb8test.CheckNIST) }

// TestEachImplSplits: each implementation in calls of random lengths against Go's in one
// call, so the boringssl row is the differential test of BoringSSL against Go.
func TestEachImplSplits(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newStream cfb8test.New) {
		rng := rand.New(rand.NewPCG(3, 4))
		for range 10 {
			cfb8test.CheckSplits(t, New, newStream, []int{0, 1, 17, 511, 512, 513, 4096, 4096 + rng.IntN(4096)}, rng)
		}
	})
}

// TestEachImplZeroAllocs: an XORKeyStream call allocates nothing (for BoringSSL: the cgo call
// keeps the slices where they are).
func TestEachImplZeroAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newStream cfb8test.New) {
		s := cfb8test.Stream(t, newStream, cfb8test.NISTKey, cfb8test.NISTIV, false)
		buf := make([]byte, 1024)
		if n := testing.AllocsPerRun(100, func() { s.XORKeyStream(buf, buf) }); n != 0 {
			t.Fatalf("%v allocations per call, want 0", n)
		}
	})
}

func TestBoringPairBadKey(t *testing.T) {
	_, _, err := NewBoringPair(make([]byte, 15))
	var cfbErr *BoringError
	switch {
	case boring.Enabled && !errors.As(err, &cfbErr):
		t.Fatalf("a 15-byte key: %v, want a BoringError", err)
	case !boring.Enabled && (!errors.Is(err, ErrBoringNotCompiled) || !strings.Contains(err.Error(), "make build")):
		t.Fatalf("pure-Go build: %v, want ErrBoringNotCompiled naming `make build`", err)
	}
}

// TestBoringPairCloses: the pair round-trips and closes (twice is harmless); a use after Close
// is the caller's bug and panics instead of touching freed memory.
func TestBoringPairCloses(t *testing.T) {
	if !boring.Enabled {
		t.Skip("boringssl is not in this build (pure Go): run `make native` and test with -tags boringssl")
	}
	enc, dec, err := NewBoringPair(cfb8test.NISTKey)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("a Minecraft packet")
	wire := append([]byte(nil), msg...)
	enc.XORKeyStream(wire, wire)
	dec.XORKeyStream(wire, wire)
	if string(wire) != string(msg) {
		t.Fatalf("round trip: %q", wire)
	}
	for _, s := range []any{enc, dec, enc} {
		if err := s.(io.Closer).Close(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("XORKeyStream after Close did not panic")
		}
	}()
	enc.XORKeyStream(wire, wire)
}

// BenchmarkCFB8 is the throughput of each implementation, in place on one stream
// (bench/results/2026-11-30-cfb8-cipher.md).
func BenchmarkCFB8(b *testing.B) {
	impls := []struct {
		name      string
		newStream cfb8test.New
	}{{"go", New}, {"boringssl", newBoring}}
	for _, impl := range impls {
		for _, dir := range []string{"encrypt", "decrypt"} {
			for _, size := range []int{64, 1024, 65536} {
				benchmarkCFB8(b, impl.name, impl.newStream, dir, size)
			}
		}
	}
}

// benchmarkCFB8 is one row of BenchmarkCFB8: one stream transforming size bytes in place per op.
func benchmarkCFB8(b *testing.B, impl string, newStream cfb8test.New, dir string, size int) {
	b.Run(fmt.Sprintf("impl=%s/dir=%s/size=%d", impl, dir, size), func(b *testing.B) {
		s, err := newStream(cfb8test.NISTKey, cfb8test.NISTIV, dir == "decrypt")
		if errors.Is(err, ErrBoringNotCompiled) {
			b.Skip(err) // the pure-Go build has no boringssl row
		}
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, size)
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			s.XORKeyStream(buf, buf)
		}
	})
}
