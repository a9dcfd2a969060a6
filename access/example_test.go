package access_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/moonbridge/moonbridge/access"
)

// The server owner signs a token for a player; the relay verifies it with the public key. A
// token signed by another key is refused, with a Reason for the metrics and the log.
func ExampleIssue() {
	key, err := access.GenerateKey(access.Ed25519, "2026-11")
	if err != nil {
		panic(err)
	}
	now := time.Now()
	token, err := access.Issue(key, access.Claims{
		Subject: "Steve", Audience: "play.example.com", Scopes: []string{"survival"},
		IssuedAt: now, NotBefore: now, Expires: now.Add(24 * time.Hour),
	})
	if err != nil {
		panic(err)
	}

	verifier, err := access.NewVerifier(access.VerifierConfig{
		Keys: []access.PublicKey{key.Public()}, Audience: "play.example.com", Leeway: time.Minute,
	})
	if err != nil {
		panic(err)
	}
	claims, err := verifier.Verify(token)
	if err != nil {
		panic(err)
	}
	fmt.Println(claims.Subject, claims.KeyID, claims.Opens("survival", "play.example.com"), claims.Opens("creative", "play.example.com"))

	other, _ := access.GenerateKey(access.Ed25519, "2026-11")
	forged, _ := access.Issue(other, access.Claims{Subject: "Steve", Audience: "play.example.com",
		IssuedAt: now, NotBefore: now, Expires: now.Add(time.Hour)})
	_, err = verifier.Verify(forged)
	var refused *access.Error
	fmt.Println(errors.As(err, &refused), refused.Reason)
	// Output:
	// Steve 2026-11 true false
	// true signature
}
