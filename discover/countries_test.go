package discover

import (
	"slices"
	"strings"
	"testing"
)

func TestCountryListReadsCodesAndRefusesOthers(t *testing.T) {
	for text, want := range map[string][]string{
		"":               {},
		" nl, DE ,xx,T1": {"NL", "DE", "XX", "T1"},
		"fr,,":           {"FR"},
	} {
		got, err := CountryList(text)
		if err != nil || !slices.Equal(got, want) || got == nil {
			t.Errorf("%q: %q, %v; want %q", text, got, err, want)
		}
	}
	for _, text := range []string{"NLD", "ZZ", "nl;de", strings.Repeat("NL,", 10) + "<script>"} {
		if got, err := CountryList(text); err == nil {
			t.Errorf("%q: took %q, want an error", text, got)
		}
	}
}
