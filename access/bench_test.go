package access

import (
	"fmt"
	"testing"
)

// BenchmarkVerify is the cost a token adds to one WebSocket upgrade, per algorithm.
func BenchmarkVerify(b *testing.B) {
	for _, alg := range allAlgorithms {
		b.Run(alg.String(), func(b *testing.B) {
			k := mustKey(b, alg, "k")
			v := testVerifier(b, k.Public())
			tok := mustIssue(b, k, testClaims())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifyCached is the cost with a cache of verified tokens: "hit" verifies one token
// again and again (a replay, a reconnecting player), "miss" a token other than the one cached
// every time (the hash, the eviction and the insertion on top of BenchmarkVerify): the cache
// holds one token, so every lookup misses (a larger cache under random eviction would keep
// some of the cycled tokens and hit).
func BenchmarkVerifyCached(b *testing.B) {
	for _, alg := range allAlgorithms {
		k := mustKey(b, alg, "k")
		toks := make([]string, 64)
		for i := range toks {
			toks[i] = mustIssue(b, k, testClaims().withSubject(fmt.Sprint("player", i)))
		}
		for _, hit := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/hit=%t", alg, hit), func(b *testing.B) {
				v := testCachingVerifier(b, 1, k.Public())
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if !hit {
						i++
					}
					if _, err := v.Verify(toks[i%len(toks)]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
