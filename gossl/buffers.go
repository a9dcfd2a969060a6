package gossl

import "github.com/moonbridge/moonbridge/internal/bufpool"

// Ciphertext buffers come from two pools, small and batch-sized, so steady-state writes and
// reads allocate nothing and a 64-byte write does not pin a 128 KiB buffer. How much the pools
// keep follows the process's memory profile (internal/bufpool.SetProfile).
const (
	smallBuf = 20 << 10  // one full record and its overhead
	batchBuf = 132 << 10 // MaxBatch sealed
)

var bufPools = [2]*bufpool.Pool{bufpool.New(smallBuf), bufpool.New(batchBuf)}

func poolFor(n int) int {
	if n <= smallBuf {
		return 0
	}
	return 1
}

// getBuf returns a pooled buffer of at least n bytes (n is at most batchBuf).
func getBuf(n int) *[]byte { return bufPools[poolFor(n)].Get() }

func putBuf(b *[]byte) { bufPools[poolFor(len(*b))].Put(b) }
