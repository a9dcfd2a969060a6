package access

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"unicode/utf8"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

// MaxKeyIDLen bounds a key id, which every token carries.
const MaxKeyIDLen = 64

// PublicKey verifies the tokens of one key id, for one algorithm.
type PublicKey struct {
	ID        string
	Algorithm Algorithm
	ed        ed25519.PublicKey
	ml        *mldsa65.PublicKey
}

// PrivateKey signs tokens; it is made from its seeds, which are what its file holds.
type PrivateKey struct {
	ID        string
	Algorithm Algorithm
	seed      []byte // Ed25519's seed, then ML-DSA-65's, as the algorithm has them
	ed        ed25519.PrivateKey
	ml        *mldsa65.PrivateKey
	public    PublicKey
}

// GenerateKey makes a new key for alg named id.
func GenerateKey(alg Algorithm, id string) (*PrivateKey, error) {
	if !alg.known() {
		return nil, &Error{Reason: ReasonAlgorithm, Detail: alg.String()}
	}
	seed := make([]byte, alg.sizes().seed)
	if _, err := rand.Read(seed); err != nil {
		return nil, err
	}
	return newPrivateKey(alg, id, seed)
}

// newPrivateKey derives a key from its seeds.
func newPrivateKey(alg Algorithm, id string, seed []byte) (*PrivateKey, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	if !alg.known() {
		return nil, fmt.Errorf("key %q: unknown algorithm %s", id, alg)
	}
	if len(seed) != alg.sizes().seed {
		return nil, fmt.Errorf("key %q: %s seed is %d bytes, want %d", id, alg, len(seed), alg.sizes().seed)
	}
	k := &PrivateKey{ID: id, Algorithm: alg, seed: append([]byte(nil), seed...)}
	k.public = PublicKey{ID: id, Algorithm: alg}
	rest := seed
	if alg.hasEd25519() {
		k.ed = ed25519.NewKeyFromSeed(rest[:ed25519.SeedSize])
		k.public.ed = k.ed.Public().(ed25519.PublicKey)
		rest = rest[ed25519.SeedSize:]
	}
	if alg.hasMLDSA() {
		k.public.ml, k.ml = mldsa65.NewKeyFromSeed((*[mldsa65.SeedSize]byte)(rest))
	}
	return k, nil
}

// Public is the key that verifies k's tokens.
func (k *PrivateKey) Public() PublicKey { return k.public }

// newPublicKey reads a key's public parts, Ed25519's first.
func newPublicKey(alg Algorithm, id string, raw []byte) (PublicKey, error) {
	if err := checkKeyID(id); err != nil {
		return PublicKey{}, err
	}
	if !alg.known() {
		return PublicKey{}, fmt.Errorf("key %q: unknown algorithm %s", id, alg)
	}
	if len(raw) != alg.sizes().public {
		return PublicKey{}, fmt.Errorf("key %q: %s public key is %d bytes, want %d", id, alg, len(raw), alg.sizes().public)
	}
	k := PublicKey{ID: id, Algorithm: alg}
	if alg.hasEd25519() {
		k.ed = ed25519.PublicKey(append([]byte(nil), raw[:ed25519.PublicKeySize]...))
		raw = raw[ed25519.PublicKeySize:]
	}
	if alg.hasMLDSA() {
		k.ml = new(mldsa65.PublicKey)
		if err := k.ml.UnmarshalBinary(raw); err != nil {
			return PublicKey{}, fmt.Errorf("key %q: %w", id, err)
		}
	}
	return k, nil
}

// bytes are the key's public parts, Ed25519's first.
func (k PublicKey) bytes() []byte {
	var b []byte
	if k.ed != nil {
		b = append(b, k.ed...)
	}
	if k.ml != nil {
		b = append(b, k.ml.Bytes()...)
	}
	return b
}

// sign signs a token body with every part of the key, Ed25519's signature first.
func (k *PrivateKey) sign(body []byte) ([]byte, error) {
	msg := signingInput(body)
	var sig []byte
	if k.ed != nil {
		sig = append(sig, ed25519.Sign(k.ed, msg)...)
	}
	if k.ml != nil {
		mlSig := make([]byte, mldsa65.SignatureSize)
		if err := mldsa65.SignTo(k.ml, msg, mldsaContext, true, mlSig); err != nil {
			return nil, err
		}
		sig = append(sig, mlSig...)
	}
	return sig, nil
}

// verify checks sig over body with every part of the key. Both halves of a composite signature
// are always checked, so the time taken does not say which one failed.
func (k PublicKey) verify(body, sig []byte) bool {
	if len(sig) != k.Algorithm.sizes().signature {
		return false
	}
	msg := signingInput(body)
	ok := true
	if k.ed != nil {
		ok = ed25519.Verify(k.ed, msg, sig[:ed25519.SignatureSize]) && ok
		sig = sig[ed25519.SignatureSize:]
	}
	if k.ml != nil {
		ok = mldsa65.Verify(k.ml, msg, mldsaContext, sig) && ok
	}
	return ok
}

func checkKeyID(id string) error {
	if id == "" || len(id) > MaxKeyIDLen || !printable(id) {
		return fmt.Errorf("key id %q: want 1-%d printable characters", id, MaxKeyIDLen)
	}
	return nil
}

// printable: valid UTF-8 without control characters, since ids and subjects go into logs.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}
