package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/routes"
)

// country_header is CF-IPCountry by default, "" turns it off, and a name that is no header is
// refused.
func TestCountryHeader(t *testing.T) {
	cfg, err := Parse([]byte(""), noEnv)
	if err != nil || cfg.CountryHeader != "CF-IPCountry" {
		t.Errorf("default country_header %q (%v), want CF-IPCountry", cfg.CountryHeader, err)
	}
	cfg, err = Parse([]byte("country_header: \"\"\n"), noEnv)
	if err != nil || cfg.CountryHeader != "" {
		t.Errorf("country_header \"\": %q (%v), want off", cfg.CountryHeader, err)
	}
	_, err = Parse([]byte("country_header: \"CF IPCountry\"\n"), noEnv)
	if err == nil || !strings.Contains(err.Error(), "country_header") {
		t.Errorf("a header name with a space: %v", err)
	}
}

// A route's countries are ISO 3166-1 alpha-2 codes (or XX, T1) in any case; a bad one is named
// with its key, in the file and in a route from the routes API.
func TestRouteCountries(t *testing.T) {
	cfg, err := Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"10.0.0.5:25565\"]\n    countries:\n      allow: [de, XX, T1]\n      deny: [fr]\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Routes[0].Countries; strings.Join(got.Allow, ",") != "de,XX,T1" || strings.Join(got.Deny, ",") != "fr" {
		t.Errorf("countries %+v", got)
	}
	_, err = Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"10.0.0.5:25565\"]\n    countries:\n      allow: [DE, UK]\n"), noEnv)
	if err == nil || !strings.Contains(err.Error(), `routes[0].countries: allow[1]: "UK" is not an ISO 3166-1 alpha-2 country code`) {
		t.Errorf("a code that is not a country: %v", err)
	}
	r := routes.Default("10.0.0.5:25565")
	r.Countries.Deny = []string{"ru"}
	if err := Default().CheckRouteFrom(OriginAPI, "v", r); err != nil {
		t.Errorf("a route from the API with a deny list: %v", err)
	}
	r.Countries.Deny = []string{"R"}
	if err := Default().CheckRouteFrom(OriginAPI, "v", r); err == nil || !strings.Contains(err.Error(), `v.countries: deny[0]: "R"`) {
		t.Errorf("a route from the API with a bad code: %v", err)
	}
}

// An allow list without XX refuses everyone while no country can be believed: no country_header
// or no trusted_proxies. check-config says so.
func TestCountriesWithoutABelievedCountryWarn(t *testing.T) {
	route := "routes:\n  - hosts: [\"*\"]\n    backends: [\"10.0.0.5:25565\"]\n    countries:\n      allow: [DE]\n"
	for text, want := range map[string]bool{
		route: true,
		route + "trusted_proxies: [192.0.2.0/24]\n":                       false,
		route + "trusted_proxies: [192.0.2.0/24]\ncountry_header: \"\"\n": true,
		strings.Replace(route, "[DE]", "[DE, XX]", 1):                     false,
	} {
		cfg, err := Parse([]byte(text), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(cfg.Warnings(), func(w Warning) bool {
			return w.Kind == WarnCountryUnknown && w.Key == "routes[0].countries.allow"
		})
		if got != want {
			t.Errorf("%s: warned %v, want %v (%v)", text, got, want, cfg.Warnings())
		}
	}
}
