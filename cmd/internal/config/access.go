package config

import (
	"fmt"

	"github.com/moonbridge/moonbridge/access"

	"github.com/moonbridge/moonbridge/routes"
)

// maxTokenCache bounds access.token_cache: an entry is about 200 bytes.
const maxTokenCache = 1 << 20

// validate checks the key files and that routes wanting tokens have keys to check them with.
func (a Access) validate(routes []Route) []error {
	var errs []error
	for i, path := range a.Keys {
		errs = append(errs, readableFile(fmt.Sprintf("access.keys[%d]", i), path))
	}
	if a.Leeway < 0 {
		errs = append(errs, invalid("access.leeway", "must be 0 or a positive duration such as 1m"))
	}
	if a.TokenCache < 0 || a.TokenCache > maxTokenCache {
		errs = append(errs, invalid("access.token_cache", "must be 0 (off) to %d tokens", maxTokenCache))
	}
	for i, r := range routes {
		errs = append(errs, a.keysFor(fmt.Sprintf("routes[%d]", i), r))
	}
	return errs
}

// keysFor refuses a route that wants tokens when there are no keys to check them with; key
// names the route ("routes[0]").
func (a Access) keysFor(key string, r Route) error {
	if len(a.Keys) == 0 && (r.Access.Tokens == access.TokensRequired || r.Access.Tokens == access.TokensOptional) {
		return invalid(key+".access.tokens", "%s needs access.keys, the public keys tokens are checked with", r.Access.Tokens)
	}
	return nil
}

func validateRouteAccess(a routes.Access, key string) []error {
	errs := validateCIDRs(key+".allow", a.Allow)
	return append(errs, validateCIDRs(key+".deny", a.Deny)...)
}
