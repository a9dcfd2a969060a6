package ws

import (
	crand "crypto/rand"
	"math/rand/v2"
)

// maskSource hands out client masking keys from a per-connection ChaCha8
// stream seeded once from crypto/rand: unpredictable keys as the RFC asks,
// without a crypto/rand call per frame.
type maskSource struct {
	rng *rand.ChaCha8
	buf uint64 // a spare 32-bit key in the high half when has is true
	has bool
}

func newMaskSource() maskSource {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // never fails on supported platforms (Go 1.24+)
	return maskSource{rng: rand.NewChaCha8(seed)}
}

// next returns a key; each 64-bit draw serves two frames.
func (m *maskSource) next() uint32 {
	if m.has {
		m.has = false
		return uint32(m.buf >> 32)
	}
	m.buf, m.has = m.rng.Uint64(), true
	return uint32(m.buf)
}
