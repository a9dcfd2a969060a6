package main

import (
	"fmt"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// tokenVerifier reads the access section's key files, again at every reload, so that a key
// added to or removed from them takes effect with SIGHUP. Without keys it is nil.
func tokenVerifier(a config.Access) (*access.Verifier, error) {
	if len(a.Keys) == 0 {
		return nil, nil
	}
	keys, err := access.ReadPublicKeyFiles(a.Keys)
	if err != nil {
		return nil, fmt.Errorf("access.keys: %w", err)
	}
	v, err := access.NewVerifier(access.VerifierConfig{Keys: keys, Audience: a.Audience, Leeway: a.Leeway, CacheSize: a.TokenCache})
	if err != nil {
		return nil, fmt.Errorf("access.keys: %w", err)
	}
	return v, nil
}
