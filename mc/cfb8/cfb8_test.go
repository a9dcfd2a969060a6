package cfb8

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"

	"github.com/moonbridge/moonbridge/mc/cfb8/cfb8test"
)

func TestNISTVectors(t *testing.T) { cfb8test.CheckNIST(t, New) }

// naive is CFB8 as the standard writes it: a 16-byte register shifted by one byte per byte.
func naive(key, iv []byte, decrypt bool) (cipher.Stream, error) {
	block, err := aes.NewCipher(key)
	return &naiveStream{block, bytes.Clone(iv), decrypt}, err
}

type naiveStream struct {
	block   cipher.Block
	reg     []byte
	decrypt bool
}

func (s *naiveStream) XORKeyStream(dst, src []byte) {
	ks := make([]byte, 16)
	for i, in := range src {
		s.block.Encrypt(ks, s.reg)
		dst[i] = in ^ ks[0]
		c := dst[i]
		if s.decrypt {
			c = in
		}
		s.reg = append(s.reg[1:], c)
	}
}

// TestAgainstNaive: random lengths, split into random pieces (the stream carries on across
// calls and across the window's wrap), equal the naive register both ways.
func TestAgainstNaive(t *testing.T) {
	sizes := []int{0, 1, 15, 16, 17, regBytes - 17, regBytes, 3*regBytes + 5, 70000}
	cfb8test.CheckSplits(t, naive, New, sizes, rand.New(rand.NewPCG(1, 2)))
}

func TestAESPair(t *testing.T) {
	enc, dec, err := NewAESPair(cfb8test.NISTKey)
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
	if _, err := New(cfb8test.NISTKey, make([]byte, 15), false); err == nil {
		t.Fatal("a 15-byte IV was taken")
	}
}
