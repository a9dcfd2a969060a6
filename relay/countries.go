package relay

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/moonbridge/moonbridge/mc"
)

// Countries are the countries a route lets in, by the code a trusted proxy's country header
// says (Config.CountryHeader): Deny wins over Allow; an empty Allow allows every country. A
// connection with no believed country (raw TCP, an untrusted peer, no or a malformed header) is
// CountryUnknown: an Allow list refuses it unless it lists XX, a Deny list lets it in unless it
// lists XX. Codes are upper case, as ParseCountries leaves them.
type Countries struct {
	Allow []string
	Deny  []string
}

// CountryUnknown is Cloudflare's code for a client it has no country for, and the relay's for a
// connection whose country it does not believe.
const CountryUnknown = "XX"

// admits says whether a client from country (CountryUnknown when not believed) may use the route.
func (c Countries) admits(country string) bool {
	if country == "" {
		country = CountryUnknown
	}
	return !slices.Contains(c.Deny, country) && (len(c.Allow) == 0 || slices.Contains(c.Allow, country))
}

// ParseCountries checks allow and deny lists of ISO 3166-1 alpha-2 codes (any case, plus
// Cloudflare's XX for unknown and T1 for Tor) and returns them upper-cased.
func ParseCountries(allow, deny []string) (Countries, error) {
	a, errA := countryCodes("allow", allow)
	d, errD := countryCodes("deny", deny)
	return Countries{Allow: a, Deny: d}, errors.Join(errA, errD)
}

// countryCodes upper-cases list, or says which of its entries is not a country code.
func countryCodes(key string, list []string) ([]string, error) {
	out := make([]string, 0, len(list))
	for i, code := range list {
		upper := strings.ToUpper(code)
		if !knownCountry(upper) {
			return nil, fmt.Errorf("%s[%d]: %q is not an ISO 3166-1 alpha-2 country code (nor XX, unknown, or T1, Tor)", key, i, code)
		}
		out = append(out, upper)
	}
	return out, nil
}

// knownCountry says whether code is an assigned ISO 3166-1 alpha-2 code or one of Cloudflare's own.
func knownCountry(code string) bool {
	if len(code) != 2 {
		return false
	}
	return code == CountryUnknown || code == "T1" || strings.Contains(iso3166, " "+code+" ")
}

// iso3166 are the 249 officially assigned ISO 3166-1 alpha-2 codes, space-separated with a space
// at each end.
const iso3166 = " AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ" +
	" BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ" +
	" CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ" +
	" DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR" +
	" GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU" +
	" ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ" +
	" LA LB LC LI LK LR LS LT LU LV LY" +
	" MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ" +
	" NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA" +
	" RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ" +
	" TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ" +
	" VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW "

// CountryError is a login refused because the route does not let the client's country in.
type CountryError struct {
	Route   string
	Country string // "" when none was believed
}

func (e *CountryError) Error() string {
	country := e.Country
	if country == "" {
		country = "unknown"
	}
	return "country " + country + " not allowed on route " + e.Route
}

// countryText is what a refused player reads.
const countryText = "This server is not available in your country."

// countryAnswer is the refused client's answer: the fallback's server-list entry with the refusal
// as its MOTD, or a login disconnect saying it.
func countryAnswer(fallback mc.Answer) mc.Answer {
	answer := mc.Answer{Status: fallback.Status, Disconnect: countryText}
	answer.Status.MOTD = "§c" + countryText
	return answer
}

// refuseCountry answers a client route does not let in from its country, before any backend is
// dialled, and says whether it did.
func (s *session) refuseCountry(o *opening, route *Route) bool {
	if route.Countries.admits(s.info.country) {
		return false
	}
	s.srv.countRefusal(refusedCountry)
	s.line.answered = "country"
	s.answer(o.r, o.hello, countryAnswer(s.fallback()), &CountryError{Route: route.Label(), Country: s.info.country})
	return true
}
