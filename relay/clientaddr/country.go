package clientaddr

import "net/http"

// Country is the country code header name of h says (Cloudflare's CF-IPCountry: an ISO 3166-1
// alpha-2 code, XX for unknown, T1 for Tor), or "" when name is "", the header is missing or
// repeated, or its value is anything but two upper-case letters or a letter and a digit. The
// caller decides whether the header's sender is believed (as for FromHeaders).
func Country(h http.Header, name string) string {
	if name == "" {
		return ""
	}
	values := h.Values(name)
	if len(values) != 1 || !countryCode(values[0]) {
		return ""
	}
	return values[0]
}

// countryCode says whether v is two characters, an upper-case letter and an upper-case letter or
// digit (T1).
func countryCode(v string) bool {
	return len(v) == 2 && isUpper(v[0]) && (isUpper(v[1]) || '0' <= v[1] && v[1] <= '9')
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
