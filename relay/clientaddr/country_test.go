package clientaddr

import (
	"net/http"
	"testing"
)

// Only one value of two upper-case letters (or T1) is a country; anything else is none.
func TestCountry(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
	}{
		{[]string{"DE"}, "DE"},
		{[]string{"T1"}, "T1"},
		{[]string{"XX"}, "XX"},
		{[]string{"de"}, ""},
		{[]string{"DEU"}, ""},
		{[]string{"D"}, ""},
		{[]string{""}, ""},
		{[]string{"D\x00"}, ""},
		{[]string{"\nD"}, ""},
		{[]string{"1D"}, ""},
		{[]string{"DE", "DE"}, ""},
		{nil, ""},
	} {
		h := http.Header{}
		for _, v := range tc.values {
			h.Add("CF-IPCountry", v)
		}
		if got := Country(h, "CF-IPCountry"); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.values, got, tc.want)
		}
	}
	if got := Country(http.Header{"Cf-Ipcountry": {"DE"}}, ""); got != "" {
		t.Errorf("with no header name: %q", got)
	}
}
