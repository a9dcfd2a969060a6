package clientaddr

import (
	"crypto/subtle"
	"net/http"
)

// ForwardSecret is a header with a shared secret that the CDN adds to every request (a
// Cloudflare Transform Rule, say) and a player cannot know. When Value is set, a trusted
// proxy's forwarded-address headers are believed only on a request that carries Header once
// with exactly Value: an address in the trusted Nets alone does not prove the request came
// through our CDN, since anyone can buy a site on the same CDN and aim it at us.
type ForwardSecret struct {
	Header string
	Value  string // "" turns the check off
}

// Admits says whether h carries the secret, or no secret is asked for.
func (f ForwardSecret) Admits(h http.Header) bool {
	if f.Value == "" {
		return true
	}
	values := h.Values(f.Header)
	return len(values) == 1 && subtle.ConstantTimeCompare([]byte(values[0]), []byte(f.Value)) == 1
}
