package access

import (
	"crypto/ed25519"
	"fmt"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

// Algorithm is how a token is signed; its number is the body's alg byte.
type Algorithm uint8

const (
	Ed25519        Algorithm = 1 // RFC 8032; small tokens, the default
	MLDSA65        Algorithm = 2 // FIPS 204 ML-DSA-65; sound against a quantum computer
	Ed25519MLDSA65 Algorithm = 3 // both, and both must verify: sound while either one is
)

// Algorithms are the known algorithms, by name.
var algorithmNames = map[Algorithm]string{
	Ed25519:        "ed25519",
	MLDSA65:        "ml-dsa-65",
	Ed25519MLDSA65: "ed25519+ml-dsa-65",
}

func (a Algorithm) String() string {
	if name, ok := algorithmNames[a]; ok {
		return name
	}
	return fmt.Sprintf("unknown(%d)", uint8(a))
}

// ParseAlgorithm reads an algorithm's name as String writes it.
func ParseAlgorithm(name string) (Algorithm, error) {
	for a, n := range algorithmNames {
		if n == name {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown algorithm %q: want ed25519, ml-dsa-65 or ed25519+ml-dsa-65", name)
}

func (a Algorithm) known() bool { _, ok := algorithmNames[a]; return ok }

func (a Algorithm) hasEd25519() bool { return a == Ed25519 || a == Ed25519MLDSA65 }
func (a Algorithm) hasMLDSA() bool   { return a == MLDSA65 || a == Ed25519MLDSA65 }

// part sizes of one algorithm's seed, public key and signature, Ed25519's part first.
type sizes struct{ seed, public, signature int }

func (a Algorithm) sizes() sizes {
	var s sizes
	if a.hasEd25519() {
		s.seed += ed25519.SeedSize
		s.public += ed25519.PublicKeySize
		s.signature += ed25519.SignatureSize
	}
	if a.hasMLDSA() {
		s.seed += mldsa65.SeedSize
		s.public += mldsa65.PublicKeySize
		s.signature += mldsa65.SignatureSize
	}
	return s
}

// signingPrefix separates what a token key signs from anything else the same key might sign.
const signingPrefix = "moonbridge-token\x00"

// mldsaContext is ML-DSA's context string (FIPS 204 §5.2) for tokens.
var mldsaContext = []byte("moonbridge-token")

func signingInput(body []byte) []byte {
	return append([]byte(signingPrefix), body...)
}
