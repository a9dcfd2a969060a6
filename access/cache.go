package access

import (
	"crypto/sha256"
	"sync"
)

// verifiedCache remembers the claims of tokens whose signature verified, so that a token seen
// again (a player reconnecting, every player of a group, a replay) costs a hash instead of a
// signature check. The key is the SHA-256 of the whole token text: a cache hit needs exactly
// the bytes that verified, so nothing can be changed in a token to reach a cached entry, and
// an entry holds 32 bytes of key whatever the algorithm (an ML-DSA-65 token is 4.5 KB).
//
// Only signatures are remembered: the times and the audience are checked on every use, so an
// entry never outlives its token. A Verifier is made again at every reload, with its keys, so a
// removed key takes its cached tokens with it. Refused tokens are not cached: an attacker could
// otherwise fill the cache with garbage.
type verifiedCache struct {
	mu      sync.Mutex
	max     int
	entries map[[sha256.Size]byte]Claims
}

func newVerifiedCache(max int) *verifiedCache {
	if max <= 0 {
		return nil
	}
	return &verifiedCache{max: max, entries: make(map[[sha256.Size]byte]Claims)}
}

func (c *verifiedCache) get(sum [sha256.Size]byte) (Claims, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	claims, ok := c.entries[sum]
	return claims, ok
}

// put adds an entry; a full cache first drops one entry, whichever Go's randomised map
// iteration yields first: random eviction needs no bookkeeping per hit, and an attacker
// holding many valid tokens gains nothing from an order it cannot predict.
func (c *verifiedCache) put(sum [sha256.Size]byte, claims Claims) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[sum]; !ok && len(c.entries) >= c.max {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[sum] = claims
}

// drop forgets an entry whose token has expired.
func (c *verifiedCache) drop(sum [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, sum)
}
