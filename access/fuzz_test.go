package access

import (
	"bytes"
	"testing"
	"time"
)

// FuzzVerify feeds arbitrary text to the verifier: it must never panic, and whatever it accepts
// must be a body that encodes back to itself (one token, one meaning).
func FuzzVerify(f *testing.F) {
	keys := []*PrivateKey{mustKey(f, Ed25519, "ed"), mustKey(f, MLDSA65, "ml"), mustKey(f, Ed25519MLDSA65, "both")}
	var pubs []PublicKey
	for _, k := range keys {
		pubs = append(pubs, k.Public())
		f.Add(mustIssue(f, k, testClaims()))
	}
	f.Add("")
	f.Add("AQ.AA")
	v, err := NewVerifier(VerifierConfig{Keys: pubs, Audience: "play.example.net", Now: func() time.Time { return testNow }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := v.Verify(token)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		body, _, _ := splitToken(token)
		again, err := c.marshal()
		if err != nil || !bytes.Equal(again, body) {
			t.Fatalf("accepted body %x encodes back as %x (%v)", body, again, err)
		}
	})
}

// FuzzParseBody checks the body parser alone, where a fuzzer can reach every field without a
// signature: no panic, and a body it parses is canonical.
func FuzzParseBody(f *testing.F) {
	body, err := testClaims().withKey(Ed25519, "k").marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := parseBody(body)
		if err != nil {
			return
		}
		again, err := c.marshal()
		if err != nil || !bytes.Equal(again, body) {
			t.Fatalf("parsed body %x encodes back as %x (%v)", body, again, err)
		}
	})
}

func (c Claims) withKey(alg Algorithm, id string) Claims {
	c.Algorithm, c.KeyID = alg, id
	return c
}
