package config

import "strings"

// ForwardSecret is a header with a shared secret the CDN adds to every request (a Cloudflare
// Transform Rule) and a player cannot know; with Value set, client_ip_headers are believed
// only on requests that carry it.
type ForwardSecret struct {
	Header string `yaml:"header"`
	Value  Secret `yaml:"value"` // empty: no secret is asked for
}

// Secret is a value the effective config (check-config) does not print.
type Secret string

// MarshalYAML hides a set secret.
func (s Secret) MarshalYAML() (any, error) {
	if s == "" {
		return "", nil
	}
	return "(set, not shown)", nil
}

func defaultForwardSecret() ForwardSecret { return ForwardSecret{Header: "X-Moonbridge-Secret"} }

func (f ForwardSecret) validate() []error {
	if f.Value == "" {
		return nil
	}
	if !isHeaderName(f.Header) {
		return []error{invalid("forward_secret.header", "%q is not a header name", f.Header)}
	}
	return nil
}

// isHeaderName: an HTTP token (RFC 9110), such as X-Moonbridge-Secret.
func isHeaderName(s string) bool {
	const symbols = "!#$%&'*+-.^_`|~"
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(symbols, c)) {
			return false
		}
	}
	return s != ""
}
