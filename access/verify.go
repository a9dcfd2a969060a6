package access

import (
	"crypto/sha256"
	"fmt"
	"time"
)

// Verifier checks tokens against a set of public keys, chosen by key id.
type Verifier struct {
	keys     map[string]PublicKey
	audience string
	leeway   time.Duration
	now      func() time.Time
	cache    *verifiedCache // nil: every token is verified in full
}

// VerifierConfig says what a Verifier accepts.
type VerifierConfig struct {
	Keys []PublicKey
	// Audience is what every token's audience must equal ("" accepts only tokens without one).
	Audience string
	// Leeway is how far the clocks of the issuer and the verifier may differ.
	Leeway time.Duration
	// Now is the clock (time.Now when nil), for tests.
	Now func() time.Time
	// CacheSize is how many verified tokens are remembered (see verifiedCache); 0 remembers
	// none.
	CacheSize int
}

// NewVerifier checks that no two keys share an id.
func NewVerifier(c VerifierConfig) (*Verifier, error) {
	v := &Verifier{keys: map[string]PublicKey{}, audience: c.Audience, leeway: c.Leeway, now: c.Now,
		cache: newVerifiedCache(c.CacheSize)}
	if v.now == nil {
		v.now = time.Now
	}
	for _, k := range c.Keys {
		if _, dup := v.keys[k.ID]; dup {
			return nil, fmt.Errorf("key id %q is given twice", k.ID)
		}
		v.keys[k.ID] = k
	}
	return v, nil
}

// KeyIDs are the ids of the verifier's keys, for a log line.
func (v *Verifier) KeyIDs() []string {
	ids := make([]string, 0, len(v.keys))
	for id := range v.keys {
		ids = append(ids, id)
	}
	return ids
}

// Verify returns the claims of a valid token, or an *Error saying why it is not. The
// signature is checked before any claim is believed (or found in the cache of tokens whose
// signature verified); the times and audience after it, every time.
func (v *Verifier) Verify(token string) (Claims, error) {
	if v.cache == nil {
		return v.verify(token)
	}
	sum := sha256.Sum256([]byte(token))
	if c, ok := v.cache.get(sum); ok {
		err := v.checkClaims(c)
		if err != nil {
			v.cache.drop(sum)
		}
		return c, err
	}
	c, err := v.verify(token)
	if err == nil {
		v.cache.put(sum, c)
	}
	return c, err
}

// verify checks a token in full: its form, its signature, then its claims.
func (v *Verifier) verify(token string) (Claims, error) {
	body, sig, err := splitToken(token)
	if err != nil {
		return Claims{}, err
	}
	c, err := parseBody(body)
	if err != nil {
		return Claims{}, err
	}
	key, ok := v.keys[c.KeyID]
	switch {
	case !ok:
		return Claims{}, deny(ReasonUnknownKey, "key id "+c.KeyID)
	case key.Algorithm != c.Algorithm:
		return Claims{}, deny(ReasonKeyAlgorithm, fmt.Sprintf("token says %s, key %q is %s", c.Algorithm, c.KeyID, key.Algorithm))
	case len(sig) != key.Algorithm.sizes().signature:
		// A signature of the wrong length is a token cut short (or padded), not a forgery.
		return Claims{}, deny(ReasonMalformed, fmt.Sprintf("signature: %d bytes, %s signs with %d", len(sig), c.Algorithm, key.Algorithm.sizes().signature))
	case !key.verify(body, sig):
		return Claims{}, deny(ReasonSignature, "key id "+c.KeyID)
	}
	return c, v.checkClaims(c)
}

func (v *Verifier) checkClaims(c Claims) error {
	now := v.now()
	switch {
	case !now.Before(c.Expires.Add(v.leeway)):
		return deny(ReasonExpired, "expired "+c.Expires.UTC().Format(time.RFC3339))
	case now.Add(v.leeway).Before(c.NotBefore):
		return deny(ReasonNotYetValid, "valid from "+c.NotBefore.UTC().Format(time.RFC3339))
	case c.Audience != v.audience:
		return deny(ReasonAudience, fmt.Sprintf("for %q, not %q", c.Audience, v.audience))
	}
	return nil
}
