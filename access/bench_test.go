package access

import "testing"

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
