package mc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// An owner's text becomes a JSON text component; what a client could not be sent is refused.
func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"§eDown for work\nback at 18:00", `{"text":"§eDown for work\nback at 18:00"}`},
		{` {"text": "Work", "color": "gold"} `, `{"text":"Work","color":"gold"}`},
		{`["a", {"text": "b"}]`, `["a",{"text":"b"}]`},
		{`"quoted" plain`, `{"text":"\"quoted\" plain"}`},
	} {
		got, err := ParseText(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("ParseText(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{
		`{"text": "unclosed"`,
		`[1, 2`,
		strings.Repeat("a", MaxTextBytes+1),
		"tab\there",
		"nul\x00",
		"\xff\xfe",
		strings.Repeat("[", maxTextDepth+1) + strings.Repeat("]", maxTextDepth+1),
	} {
		if got, err := ParseText(bad); !errors.Is(err, ErrText) {
			t.Errorf("ParseText(%.40q) = %s, %v; want ErrText", bad, got, err)
		}
	}
}

// PlainText reads the words of a component, nested extras included, without its styles.
func TestPlainText(t *testing.T) {
	for in, want := range map[string]string{
		`{"text":"Down ","color":"red","extra":["for ",{"text":"work","bold":true}]}`: "Down for work",
		`["a",{"text":"b"}]`: "ab",
		`"plain"`:            "plain",
		`{"translate":"x"}`:  "",
	} {
		if got := PlainText([]byte(in)); got != want {
			t.Errorf("PlainText(%s) = %q, want %q", in, got, want)
		}
	}
}

// Whatever an owner (or a holder of the admin token) writes, ParseText gives a JSON text
// component within the bound or refuses it, and PlainText reads any component without failing.
func FuzzParseText(f *testing.F) {
	for _, seed := range []string{"§aHi", `{"text":"a","extra":["b",{"text":"c"}]}`, `[[[[]]]]`, `{"text":"\"}`, "a\nb"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseText(s)
		if err != nil {
			return
		}
		if !json.Valid(out) || len(out) > 6*MaxTextBytes+16 || jsonDepth(string(out)) > maxTextDepth+1 {
			t.Fatalf("ParseText(%q) = %s", s, out)
		}
		PlainText(out)
	})
}
