package traffic

import "math/rand/v2"

// pattern returns n bytes from a fixed seed: content that differs byte to byte, so that a
// relay that drops, repeats or swaps bytes is caught by the byte-for-byte check.
func pattern(n int) []byte {
	return randomBytes(rand.New(rand.NewPCG(0x6d6f6f6e, 0x62726467)), n)
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
