package discover

import (
	"strings"

	"github.com/moonbridge/moonbridge/relay"
)

// CountryList is one of a route's country lists (routes.Countries) from a label's or an
// annotation's text: comma-separated ISO 3166-1 alpha-2 codes in any case, XX (no believed
// country) and T1 (Tor), as the config file takes them; "" is the empty list. A list only
// narrows who may use the route the source writes, never another route.
func CountryList(text string) ([]string, error) {
	var codes []string
	for code := range strings.SplitSeq(text, ",") {
		if code = strings.TrimSpace(code); code != "" {
			codes = append(codes, code)
		}
	}
	parsed, err := relay.ParseCountries(codes, nil)
	if err != nil {
		return nil, err
	}
	return parsed.Allow, nil
}
