package bans

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

func TestEntryRefusesWhatTheLeastTrustedWriterSends(t *testing.T) {
	for name, e := range map[string]Entry{
		"name with a control character": {Kind: KindName, Value: "Steve\x1b[2J"},
		"name with a space":             {Kind: KindName, Value: "Ste ve"},
		"name of 10 kB":                 {Kind: KindName, Value: strings.Repeat("a", 10<<10)},
		"name of 17 characters":         {Kind: KindName, Value: strings.Repeat("a", 17)},
		"empty name":                    {Kind: KindName},
		"name that is not UTF-8":        {Kind: KindName, Value: "\xff\xfe"},
		"uuid that is not one":          {Kind: KindUUID, Value: "not-a-uuid"},
		"uuid with a stray dash":        {Kind: KindUUID, Value: "069a79f4-44e9-4726a-5be-fca90e38aaf5"},
		"uuid of 10 kB":                 {Kind: KindUUID, Value: strings.Repeat("0", 10<<10)},
		"uuid with a non-hex digit":     {Kind: KindUUID, Value: "069a79f444e94726a5befca90e38aafg"},
		"address /0":                    {Kind: KindAddress, Value: "0.0.0.0/0"},
		"address ::/0":                  {Kind: KindAddress, Value: "::/0"},
		"address /0 confirmed":          {Kind: KindAddress, Value: "0.0.0.0/0", ConfirmWide: true},
		"address /8 unconfirmed":        {Kind: KindAddress, Value: "10.0.0.0/8"},
		"address v6 /16 unconfirmed":    {Kind: KindAddress, Value: "2001::/16"},
		"address with host bits":        {Kind: KindAddress, Value: "10.0.0.5/24"},
		"address that is a name":        {Kind: KindAddress, Value: "example.com"},
		"address with a zone":           {Kind: KindAddress, Value: "fe80::1%eth0"},
		"unknown kind":                  {Kind: "ip", Value: "10.0.0.1"},
		"reason of 10 kB":               {Kind: KindName, Value: "Steve", Reason: strings.Repeat("x", 10<<10)},
		"reason with a control char":    {Kind: KindName, Value: "Steve", Reason: "bye\x07"},
		"reason that is not UTF-8":      {Kind: KindName, Value: "Steve", Reason: "\xff"},
		"expires not a time":            {Kind: KindName, Value: "Steve", Expires: "tomorrow"},
		"expires a duration in a file":  {Kind: KindName, Value: "Steve", Expires: "7d"},
		"expires in the past":           {Kind: KindName, Value: "Steve", Expires: "2020-01-01T00:00:00Z"},
		"added not a time":              {Kind: KindName, Value: "Steve", Added: "yesterday"},
	} {
		_, err := e.Ban(now)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an *InputError", name, err)
			continue
		}
		if len(err.Error()) > 400 {
			t.Errorf("%s: the error is %d bytes long: it should quote the value shortened", name, len(err.Error()))
		}
	}
}

func TestEntryCanonicalForms(t *testing.T) {
	for _, c := range []struct {
		e    Entry
		want string
	}{
		{Entry{Kind: KindName, Value: "Notch"}, "notch"},
		{Entry{Kind: KindUUID, Value: "069A79F444E94726A5BEFCA90E38AAF5"}, "069a79f4-44e9-4726-a5be-fca90e38aaf5"},
		{Entry{Kind: KindUUID, Value: "069a79f4-44e9-4726-a5be-fca90e38aaf5"}, "069a79f4-44e9-4726-a5be-fca90e38aaf5"},
		{Entry{Kind: KindAddress, Value: "203.0.113.9"}, "203.0.113.9/32"},
		{Entry{Kind: KindAddress, Value: "::ffff:203.0.113.9"}, "203.0.113.9/32"},
		{Entry{Kind: KindAddress, Value: "2001:db8::/48"}, "2001:db8::/48"},
		{Entry{Kind: KindAddress, Value: "10.0.0.0/8", ConfirmWide: true}, "10.0.0.0/8"},
	} {
		b, err := c.e.Ban(now)
		if err != nil || b.Value != c.want {
			t.Errorf("%+v: got %q, %v; want %q", c.e, b.Value, err, c.want)
		}
		// What the file gets back reads as the same ban (a wide one keeps its confirmation).
		again, err := b.Entry().Ban(now)
		if err != nil || again != b {
			t.Errorf("%+v: written and read again: %+v, %v", c.e, again, err)
		}
	}
}

func TestParseExpires(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "",
		"2027-01-01T00:00:00Z": "2027-01-01T00:00:00Z",
		"90m":                  "2026-12-04T13:30:00Z",
		"7d":                   "2026-12-11T12:00:00Z",
	} {
		if got, err := ParseExpires(in, now); err != nil || got != want {
			t.Errorf("ParseExpires(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"-1h", "0s", "d", "1.5d", "99999999999d", "soon", strings.Repeat("9", 10<<10) + "d"} {
		if got, err := ParseExpires(in, now); err == nil {
			t.Errorf("ParseExpires(%q) = %q, want an error", in, got)
		}
	}
}

func TestMessageSaysTheReasonAndTheEnd(t *testing.T) {
	b := Ban{Kind: KindName, Value: "steve", Reason: "griefing spawn", Expires: time.Date(2027, 1, 2, 3, 4, 0, 0, time.UTC)}
	if got := b.Message(); !strings.Contains(got, "griefing spawn") || !strings.Contains(got, "2027-01-02 03:04 UTC") {
		t.Errorf("Message() = %q", got)
	}
	b.Expires = time.Time{}
	if got := b.Message(); !strings.Contains(got, "does not end") {
		t.Errorf("Message() of a ban without an end = %q", got)
	}
}
