package play

import (
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// Ids of protocol 766's packets that the tests send, checked against minecraft-data by
// TestTableKnownIDs.
const (
	configTransfer     = 0x0B
	configFinish       = 0x03
	configDisconnect   = 0x02
	configKeepAlive    = 0x04 // any packet that changes nothing
	playStartConfig    = 0x69
	playTransfer       = 0x73
	playChunk          = 0x27 // any packet that changes nothing
	playBundle         = 0x00
	playKickDisconnect = 0x1D
)

// packet is one packet of a hand-built stream: its id and fields.
type packet struct {
	id     int32
	fields []byte
}

// frame encodes p as the server does: without compression when threshold < 0; with it, zlib
// from threshold bytes of data on.
func frame(p packet, threshold int) []byte {
	data := mc.AppendVarInt(nil, p.id)
	data = append(data, p.fields...)
	switch {
	case threshold < 0:
		return withLength(data)
	case len(data) < threshold:
		return withLength(append([]byte{0}, data...))
	}
	return withLength(append(mc.AppendVarInt(nil, int32(len(data))), testutil.Zlib(data)...))
}

func withLength(body []byte) []byte {
	return append(mc.AppendVarInt(nil, int32(len(body))), body...)
}

func varInts(vs ...int32) []byte {
	var b []byte
	for _, v := range vs {
		b = mc.AppendVarInt(b, v)
	}
	return b
}

// noise is n bytes that compress poorly, for large packets.
func noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func newTracker(t testing.TB) *Tracker {
	t.Helper()
	tr, err := NewTracker(FirstProtocol)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// feedAll feeds b without stop and fails the test on an error.
func feedAll(t testing.TB, tr *Tracker, b []byte) {
	t.Helper()
	if n, err := tr.Feed(b, false); err != nil || n != len(b) {
		t.Fatalf("Feed = %d, %v; want %d, nil", n, err, len(b))
	}
}
