package cfb8

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// NIST SP 800-38A, F.3.7 and F.3.8: CFB8-AES128 encrypt and decrypt.
var (
	nistKey    = testutil.Unhex("2b7e151628aed2a6abf7158809cf4f3c")
	nistIV     = testutil.Unhex("000102030405060708090a0b0c0d0e0f")
	nistPlain  = testutil.Unhex("6bc1bee22e409f96e93d7e117393172aae2d")
	nistCipher = testutil.Unhex("3b79424c9c0dd436bace9e0ed4586a4f32b9")
)

func nistBlock(t testing.TB) cipher.Block {
	b, err := aes.NewCipher(nistKey)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNISTVectors(t *testing.T) {
	got := make([]byte, len(nistPlain))
	NewEncrypter(nistBlock(t), nistIV).XORKeyStream(got, nistPlain)
	if !bytes.Equal(got, nistCipher) {
		t.Fatalf("encrypt: % x, want % x", got, nistCipher)
	}
	NewDecrypter(nistBlock(t), nistIV).XORKeyStream(got, got) // in place
	if !bytes.Equal(got, nistPlain) {
		t.Fatalf("decrypt: % x, want % x", got, nistPlain)
	}
}

// naive is CFB8 as the standard writes it: a 16-byte register shifted by one byte per byte.
func naive(block cipher.Block, iv, src []byte, decrypt bool) []byte {
	reg := bytes.Clone(iv)
	out, ks := make([]byte, len(src)), make([]byte, 16)
	for i, in := range src {
		block.Encrypt(ks, reg)
		out[i] = in ^ ks[0]
		c := out[i]
		if decrypt {
			c = in
		}
		reg = append(reg[1:], c)
	}
	return out
}

// TestAgainstNaive: random lengths, split into random pieces (the stream carries on across
// calls and across the window's wrap), equal the naive register both ways.
func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	block := nistBlock(t)
	for _, size := range []int{0, 1, 15, 16, 17, regBytes - 17, regBytes, 3*regBytes + 5, 70000} {
		src := make([]byte, size)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		for _, decrypt := range []bool{false, true} {
			want := naive(block, nistIV, src, decrypt)
			s := newStream(block, nistIV, decrypt)
			got := bytes.Clone(src)
			for rest := got; len(rest) > 0; {
				n := 1 + rng.IntN(len(rest))
				s.XORKeyStream(rest[:n], rest[:n])
				rest = rest[n:]
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("size %d decrypt %v: differs from the naive register", size, decrypt)
			}
		}
	}
}

func TestAESPair(t *testing.T) {
	enc, dec, err := NewAESPair(nistKey)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("a Minecraft packet")
	wire := bytes.Clone(msg)
	enc.XORKeyStream(wire, wire)
	dec.XORKeyStream(wire, wire)
	if !bytes.Equal(wire, msg) {
		t.Fatalf("round trip: %q", wire)
	}
	if _, _, err := NewAESPair(make([]byte, 15)); err == nil {
		t.Fatal("a 15-byte key was taken")
	}
}

func TestZeroAllocs(t *testing.T) {
	s := NewEncrypter(nistBlock(t), nistIV)
	buf := make([]byte, 1024)
	if n := testing.AllocsPerRun(100, func() { s.XORKeyStream(buf, buf) }); n != 0 {
		t.Fatalf("%v allocations per call, want 0", n)
	}
}

func benchmarkCFB8(b *testing.B, size int) {
	s := NewEncrypter(nistBlock(b), nistIV)
	buf := make([]byte, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		s.XORKeyStream(buf, buf)
	}
}

func BenchmarkCFB8_64(b *testing.B)  { benchmarkCFB8(b, 64) }
func BenchmarkCFB8_1K(b *testing.B)  { benchmarkCFB8(b, 1024) }
func BenchmarkCFB8_64K(b *testing.B) { benchmarkCFB8(b, 64<<10) }
