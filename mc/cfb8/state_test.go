package cfb8

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/boring"
	"github.com/moonbridge/moonbridge/mc/cfb8/cfb8test"
)

// TestStateMovesMidStream: a stream exported after an odd number of bytes (in random splits,
// in place or not) and imported into either implementation carries on with exactly the bytes
// the original produces, both directions.
func TestStateMovesMidStream(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newStream cfb8test.New) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, offset := range []int{0, 1, 7, 15, 16, 17, 33, 495, 496, 497, 1001} {
			for _, decrypt := range []bool{false, true} {
				for _, into := range importTargets() {
					checkMoveAt(t, rng, newStream, into, offset, decrypt)
				}
			}
		}
	})
}

// importTargets are the implementations this build can import into.
func importTargets() []Impl {
	if boring.Enabled {
		return []Impl{ImplGo, ImplBoringSSL}
	}
	return []Impl{ImplGo}
}

func checkMoveAt(t *testing.T, rng *rand.Rand, newStream cfb8test.New, into Impl, offset int, decrypt bool) {
	t.Helper()
	key, iv := randomBytes(rng, 16), randomBytes(rng, 16)
	orig := cfb8test.Stream(t, newStream, key, iv, decrypt)
	before := randomBytes(rng, offset)
	for rest := before; len(rest) > 0; { // random splits, in place
		n := 1 + rng.IntN(len(rest))
		orig.XORKeyStream(rest[:n], rest[:n])
		rest = rest[n:]
	}
	st, err := Export(orig)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := Import(into, st)
	if err != nil {
		t.Fatal(err)
	}
	st.Clear()
	if st.Key != ([16]byte{}) || st.Register != ([16]byte{}) {
		t.Fatalf("Clear left key or register in the state")
	}
	after := randomBytes(rng, 300)
	want, got := make([]byte, len(after)), make([]byte, len(after))
	orig.XORKeyStream(want, after)
	moved.XORKeyStream(got, after)
	if !bytes.Equal(got, want) {
		t.Fatalf("into %s, decrypt %v, moved at byte %d: % x, want % x", into, decrypt, offset, got[:16], want[:16])
	}
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestExportForeignStream: a stream this package did not make has no state to export.
func TestExportForeignStream(t *testing.T) {
	_, err := Export(xorStream{})
	var notOurs *NotExportableError
	if !errors.As(err, &notOurs) || !strings.Contains(err.Error(), "xorStream") {
		t.Fatalf("Export(foreign) = %v, want a NotExportableError naming the type", err)
	}
}

type xorStream struct{}

func (xorStream) XORKeyStream(dst, src []byte) { copy(dst, src) }

// TestImportUnknownImpl: Import wants a concrete implementation.
func TestImportUnknownImpl(t *testing.T) {
	if _, err := Import(ImplAuto, State{}); err == nil {
		t.Fatal("Import(auto) succeeded, want an error: the state names no implementation")
	}
}
