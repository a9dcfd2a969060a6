package access

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

var allAlgorithms = []Algorithm{Ed25519, MLDSA65, Ed25519MLDSA65}

func testClaims() Claims {
	return Claims{
		Subject: "alice", Audience: "play.example.net",
		IssuedAt: testNow.Add(-time.Hour), NotBefore: testNow.Add(-time.Hour), Expires: testNow.Add(time.Hour),
		Scopes: []string{"lobby"},
	}
}

func mustKey(t testing.TB, alg Algorithm, id string) *PrivateKey {
	t.Helper()
	k, err := GenerateKey(alg, id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustIssue(t testing.TB, k *PrivateKey, c Claims) string {
	t.Helper()
	tok, err := Issue(k, c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func testVerifier(t testing.TB, keys ...PublicKey) *Verifier {
	t.Helper()
	return testCachingVerifier(t, 0, keys...)
}

// testCachingVerifier is testVerifier remembering up to cacheSize verified tokens.
func testCachingVerifier(t testing.TB, cacheSize int, keys ...PublicKey) *Verifier {
	t.Helper()
	v, err := NewVerifier(VerifierConfig{Keys: keys, Audience: "play.example.net", Now: func() time.Time { return testNow }, CacheSize: cacheSize})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRoundTripEachAlgorithm(t *testing.T) {
	for _, alg := range allAlgorithms {
		t.Run(alg.String(), func(t *testing.T) {
			k := mustKey(t, alg, "k-"+alg.String())
			tok := mustIssue(t, k, testClaims())
			if len(tok) > MaxTokenLen {
				t.Fatalf("token is %d characters, over MaxTokenLen %d", len(tok), MaxTokenLen)
			}
			c, err := testVerifier(t, k.Public()).Verify(tok)
			if err != nil {
				t.Fatal(err)
			}
			want := testClaims()
			if c.Subject != want.Subject || c.Audience != want.Audience || !c.Expires.Equal(want.Expires) ||
				!c.NotBefore.Equal(want.NotBefore) || !c.IssuedAt.Equal(want.IssuedAt) ||
				c.Algorithm != alg || c.KeyID != k.ID || strings.Join(c.Scopes, ",") != "lobby" {
				t.Fatalf("claims %+v, want %+v", c, want)
			}
			t.Logf("%s token: %d characters", alg, len(tok))
		})
	}
}

func TestKeyRotation(t *testing.T) {
	old, next := mustKey(t, Ed25519, "2026-10"), mustKey(t, MLDSA65, "2026-11")
	oldTok, nextTok := mustIssue(t, old, testClaims()), mustIssue(t, next, testClaims())
	both := testVerifier(t, old.Public(), next.Public())
	for _, tok := range []string{oldTok, nextTok} {
		if _, err := both.Verify(tok); err != nil {
			t.Fatalf("during the rotation: %v", err)
		}
	}
	after := testVerifier(t, next.Public())
	if _, err := after.Verify(nextTok); err != nil {
		t.Fatal(err)
	}
	wantReason(t, after, oldTok, ReasonUnknownKey)
	if _, err := NewVerifier(VerifierConfig{Keys: []PublicKey{old.Public(), old.Public()}}); err == nil {
		t.Fatal("two keys with one id were accepted")
	}
}

func wantReason(t *testing.T, v *Verifier, tok string, want Reason) {
	t.Helper()
	_, err := v.Verify(tok)
	var ae *Error
	if !errors.As(err, &ae) || ae.Reason != want {
		t.Fatalf("Verify: %v, want reason %s", err, want)
	}
}

// flip changes one byte of a token's part (0 body, 1 signature) at offset i of its decoded bytes.
func flip(t *testing.T, tok string, part, i int) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	raw, err := b64.DecodeString(parts[part])
	if err != nil {
		t.Fatal(err)
	}
	raw[i] ^= 0x01
	parts[part] = b64.EncodeToString(raw)
	return strings.Join(parts, ".")
}

// withBody re-encodes a token with body changed by edit and the signature kept.
func withBody(t *testing.T, tok string, edit func([]byte) []byte) string {
	t.Helper()
	body, sig, err := splitToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	return b64.EncodeToString(edit(body)) + "." + b64.EncodeToString(sig)
}

// shortSig re-encodes a token without its signature's last byte.
func shortSig(t *testing.T, tok string) string {
	t.Helper()
	body, sig, err := splitToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	return b64.EncodeToString(body) + "." + b64.EncodeToString(sig[:len(sig)-1])
}

func TestRejections(t *testing.T) {
	ed, ml, both := mustKey(t, Ed25519, "ed"), mustKey(t, MLDSA65, "ml"), mustKey(t, Ed25519MLDSA65, "both")
	good := mustIssue(t, ed, testClaims())
	composite := mustIssue(t, both, testClaims())
	claims := func(edit func(*Claims)) Claims { c := testClaims(); edit(&c); return c }
	// An Ed25519 key that claims the id of the ML-DSA key: its token says alg ed25519, kid "ml".
	impostor := mustKey(t, Ed25519, "ml")
	// The composite key's Ed25519 half alone, under the composite key's id (a stripped signature).
	stripped := &PrivateKey{ID: "both", Algorithm: Ed25519, ed: both.ed}
	cases := []struct {
		name  string
		token string
		want  Reason
	}{
		{"empty", "", ReasonMalformed},
		{"no dot", "AQE", ReasonMalformed},
		{"padding", good + "=", ReasonMalformed},
		{"not base64url", strings.Replace(good, ".", ".+", 1), ReasonMalformed},
		{"oversized", strings.Repeat("A", MaxTokenLen+1), ReasonOversized},
		{"short body", b64.EncodeToString([]byte{1}) + ".AA", ReasonMalformed},
		{"trailing byte", withBody(t, good, func(b []byte) []byte { return append(b, 0) }), ReasonMalformed},
		{"truncated body", withBody(t, good, func(b []byte) []byte { return b[:len(b)-1] }), ReasonMalformed},
		{"version 2", withBody(t, good, func(b []byte) []byte { b[0] = 2; return b }), ReasonVersion},
		{"version 0", withBody(t, good, func(b []byte) []byte { b[0] = 0; return b }), ReasonVersion},
		{"unknown algorithm", withBody(t, good, func(b []byte) []byte { b[1] = 9; return b }), ReasonAlgorithm},
		{"alg switched to ml-dsa", withBody(t, good, func(b []byte) []byte { b[1] = byte(MLDSA65); return b }), ReasonKeyAlgorithm},
		{"alg confusion", mustIssue(t, impostor, testClaims()), ReasonKeyAlgorithm},
		{"composite stripped to ed25519", mustIssue(t, stripped, testClaims()), ReasonKeyAlgorithm},
		{"unknown key", mustIssue(t, mustKey(t, Ed25519, "other"), testClaims()), ReasonUnknownKey},
		{"body changed", flip(t, good, 0, len(good)/4), ReasonSignature},
		{"signature changed", flip(t, good, 1, 10), ReasonSignature},
		{"signature short", shortSig(t, good), ReasonMalformed},
		{"cut in half", good[:len(good)/2], ReasonMalformed},
		{"composite cut short", composite[:len(composite)-200], ReasonMalformed},
		{"composite ed25519 half bad", flip(t, composite, 1, 3), ReasonSignature},
		{"composite ml-dsa half bad", flip(t, composite, 1, 64+100), ReasonSignature},
		{"ml-dsa signature bad", flip(t, mustIssue(t, ml, testClaims()), 1, 7), ReasonSignature},
		{"expired", mustIssue(t, ed, claims(func(c *Claims) { c.Expires = testNow })), ReasonExpired},
		{"not yet valid", mustIssue(t, ed, claims(func(c *Claims) { c.NotBefore = testNow.Add(time.Second) })), ReasonNotYetValid},
		{"wrong audience", mustIssue(t, ed, claims(func(c *Claims) { c.Audience = "other.example.net" })), ReasonAudience},
		{"no audience", mustIssue(t, ed, claims(func(c *Claims) { c.Audience = "" })), ReasonAudience},
	}
	// With a cache, the valid tokens the bad ones are made from are verified first: a bad
	// token must not pass for its cached origin.
	for _, cacheSize := range []int{0, 64} {
		v := testCachingVerifier(t, cacheSize, ed.Public(), ml.Public(), both.Public())
		for _, tok := range []string{good, composite} {
			if _, err := v.Verify(tok); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("cache %d/%s", cacheSize, tc.name), func(t *testing.T) { wantReason(t, v, tc.token, tc.want) })
		}
	}
}

func TestLeeway(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	v, err := NewVerifier(VerifierConfig{Keys: []PublicKey{k.Public()}, Leeway: time.Minute, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	c := Claims{Subject: "bob", NotBefore: testNow.Add(30 * time.Second), Expires: testNow.Add(-30 * time.Second)}
	c.Expires = testNow.Add(-30 * time.Second)
	c.NotBefore = c.Expires.Add(-time.Hour)
	if _, err := v.Verify(mustIssue(t, k, c)); err != nil {
		t.Fatalf("expired 30 s ago with a minute of leeway: %v", err)
	}
	c.NotBefore, c.Expires = testNow.Add(30*time.Second), testNow.Add(time.Hour)
	if _, err := v.Verify(mustIssue(t, k, c)); err != nil {
		t.Fatalf("valid in 30 s with a minute of leeway: %v", err)
	}
	c.NotBefore = testNow.Add(2 * time.Minute)
	wantReason(t, v, mustIssue(t, k, c), ReasonNotYetValid)
}

func TestIssueRefusesBadClaims(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	for name, edit := range map[string]func(*Claims){
		"no subject":          func(c *Claims) { c.Subject = "" },
		"control character":   func(c *Claims) { c.Subject = "a\nb" },
		"long subject":        func(c *Claims) { c.Subject = strings.Repeat("a", 256) },
		"too many scopes":     func(c *Claims) { c.Scopes = make([]string, MaxScopes+1) },
		"empty scope":         func(c *Claims) { c.Scopes = []string{""} },
		"expires before nbf":  func(c *Claims) { c.Expires = c.NotBefore },
		"invalid utf-8 scope": func(c *Claims) { c.Scopes = []string{"\xff"} },
	} {
		c := testClaims()
		edit(&c)
		if tok, err := Issue(k, c); err == nil {
			t.Errorf("%s: issued %s", name, tok)
		}
	}
}

// A token a verifier would refuse as oversized is not issued.
func TestIssueRefusesOversizedToken(t *testing.T) {
	c := testClaims()
	c.Scopes = nil
	for i := range MaxScopes {
		c.Scopes = append(c.Scopes, strings.Repeat(string(rune('a'+i)), 200))
	}
	if _, err := Issue(mustKey(t, Ed25519, "small"), c); err != nil {
		t.Fatalf("an Ed25519 token with %d long scopes: %v", len(c.Scopes), err)
	}
	_, err := Issue(mustKey(t, Ed25519MLDSA65, "big"), c)
	var ae *Error
	if !errors.As(err, &ae) || ae.Reason != ReasonOversized {
		t.Fatalf("a composite token with %d long scopes: %v, want oversized", len(c.Scopes), err)
	}
}

func TestOpens(t *testing.T) {
	c := Claims{Scopes: []string{"lobby", "Creative.Example.net"}}
	for _, tc := range []struct {
		label, host string
		want        bool
	}{
		{"lobby", "x", true},
		{"survival", "creative.example.net.", true},
		{"survival", "play.example.net", false},
	} {
		if got := c.Opens(tc.label, tc.host); got != tc.want {
			t.Errorf("Opens(%q, %q) = %v", tc.label, tc.host, got)
		}
	}
	if !(Claims{}).Opens("any", "any") {
		t.Error("a token without scopes does not open every route")
	}
}
