package access

import (
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestCacheHitSkipsTheSignature proves a second Verify of a token comes from the cache: with the
// key gone from the verifier's map (white box), only a cached token can still verify.
func TestCacheHitSkipsTheSignature(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	v := testCachingVerifier(t, 8, k.Public())
	tok := mustIssue(t, k, testClaims())
	first, err := v.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	delete(v.keys, "k")
	again, err := v.Verify(tok)
	if err != nil {
		t.Fatalf("cached token: %v", err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("cached claims %+v, verified %+v", again, first)
	}
	wantReason(t, v, mustIssue(t, k, testClaims().withSubject("bob")), ReasonUnknownKey)
}

func (c Claims) withSubject(s string) Claims { c.Subject = s; return c }

func TestCacheKeepsOnlyVerifiedTokens(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	v := testCachingVerifier(t, 8, k.Public())
	good := mustIssue(t, k, testClaims())
	for range 2 {
		wantReason(t, v, flip(t, good, 1, 5), ReasonSignature)
		wantReason(t, v, mustIssue(t, k, testClaims().withAudience("elsewhere")), ReasonAudience)
	}
	if n := cacheLen(v); n != 0 {
		t.Fatalf("%d refused tokens cached", n)
	}
	if _, err := v.Verify(good); err != nil {
		t.Fatal(err)
	}
	if n := cacheLen(v); n != 1 {
		t.Fatalf("%d entries after one valid token, want 1", n)
	}
}

func (c Claims) withAudience(a string) Claims { c.Audience = a; return c }

// TestCachedTokenStillExpires: the times are checked at every use, and an expired entry goes.
func TestCachedTokenStillExpires(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	now := testNow
	v, err := NewVerifier(VerifierConfig{Keys: []PublicKey{k.Public()}, Audience: "play.example.net",
		Now: func() time.Time { return now }, CacheSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	tok := mustIssue(t, k, testClaims()) // expires an hour after testNow
	if _, err := v.Verify(tok); err != nil {
		t.Fatal(err)
	}
	now = testNow.Add(2 * time.Hour)
	wantReason(t, v, tok, ReasonExpired)
	if n := cacheLen(v); n != 0 {
		t.Fatalf("expired token still cached (%d entries)", n)
	}
}

func TestCacheIsBounded(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	v := testCachingVerifier(t, 2, k.Public())
	for _, name := range []string{"a", "b", "c", "d"} {
		if _, err := v.Verify(mustIssue(t, k, testClaims().withSubject(name))); err != nil {
			t.Fatal(err)
		}
	}
	if n := cacheLen(v); n != 2 {
		t.Fatalf("%d entries in a cache of 2", n)
	}
}

// TestCacheUnderConcurrentUpgrades: upgrades verify on many goroutines at once (run with -race).
func TestCacheUnderConcurrentUpgrades(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	v := testCachingVerifier(t, 2, k.Public())
	toks := []string{
		mustIssue(t, k, testClaims().withSubject("a")),
		mustIssue(t, k, testClaims().withSubject("b")),
		mustIssue(t, k, testClaims().withSubject("c")),
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*30)
	for g := range 8 {
		wg.Go(func() {
			for i := range 30 {
				tok := toks[(g+i)%len(toks)]
				c, err := v.Verify(tok)
				if err == nil && c.Subject != string(rune('a'+(g+i)%len(toks))) {
					err = &Error{Reason: ReasonMalformed, Detail: "claims of another token: " + c.Subject}
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// cacheLen is the number of tokens v remembers.
func cacheLen(v *Verifier) int {
	v.cache.mu.Lock()
	defer v.cache.mu.Unlock()
	return len(v.cache.entries)
}
