package ws

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// offerHeader is a request header with one Sec-WebSocket-Protocol line per argument.
func offerHeader(lines ...string) http.Header {
	h := http.Header{}
	for _, l := range lines {
		h.Add("Sec-WebSocket-Protocol", l)
	}
	return h
}

func edValue(b []byte) string { return EarlyDataPrefix + base64.RawURLEncoding.EncodeToString(b) }

func TestParseOfferTakesEarlyData(t *testing.T) {
	data := []byte("\x10\x00\xff\x05\x09localhost\x63\xdd\x02")
	for _, tc := range []struct {
		name  string
		lines []string
	}{
		{"one line", []string{EarlyDataProtocol + ", " + edValue(data)}},
		{"two lines", []string{EarlyDataProtocol, edValue(data)}},
		{"data first, spaces", []string{"  " + edValue(data) + " ,moonbridge-ed  "}},
		{"with every token", []string{strings.Join(offerValues(data, true, "moonbridge"), ", ")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseOffer(offerHeader(tc.lines...), 64)
			if err != nil {
				t.Fatal(err)
			}
			if !o.EarlyDataOffered || !bytes.Equal(o.EarlyData, data) {
				t.Fatalf("offered %v, data %q; want %q", o.EarlyDataOffered, o.EarlyData, data)
			}
		})
	}
}

// Every offer of early data ParseOffer refuses, and how: malformed base64 (a control byte
// included: Go's decoder skips CR and LF), too large, empty, twice, without the token.
func TestParseOfferRefuses(t *testing.T) {
	data := bytes.Repeat([]byte{0xfb}, 100)
	enc := base64.RawURLEncoding.EncodeToString(data)
	for _, tc := range []struct {
		name  string
		lines []string
		limit int
		want  EarlyDataResult
	}{
		{"standard alphabet", []string{EarlyDataProtocol, EarlyDataPrefix + base64.RawStdEncoding.EncodeToString(data)}, 200, EarlyDataMalformed},
		{"padding", []string{EarlyDataProtocol, EarlyDataPrefix + base64.URLEncoding.EncodeToString(data[:4])}, 200, EarlyDataMalformed},
		{"not base64", []string{EarlyDataProtocol, EarlyDataPrefix + "a!b"}, 200, EarlyDataMalformed},
		{"a CR inside", []string{EarlyDataProtocol, EarlyDataPrefix + "\r000"}, 200, EarlyDataMalformed},
		{"a LF inside", []string{EarlyDataProtocol, EarlyDataPrefix + enc[:4] + "\n" + enc[4:8]}, 200, EarlyDataMalformed},
		{"a NUL inside", []string{EarlyDataProtocol, EarlyDataPrefix + enc[:4] + "\x00" + enc[4:8]}, 200, EarlyDataMalformed},
		{"a tab inside", []string{EarlyDataProtocol, EarlyDataPrefix + enc[:4] + "\t" + enc[4:8]}, 200, EarlyDataMalformed},
		{"impossible length", []string{EarlyDataProtocol, EarlyDataPrefix + "abcde"}, 200, EarlyDataMalformed},
		{"trailing bits set", []string{EarlyDataProtocol, EarlyDataPrefix + "AB"}, 200, EarlyDataMalformed},
		{"empty", []string{EarlyDataProtocol + ", " + EarlyDataPrefix}, 200, EarlyDataMalformed},
		{"twice, same", []string{EarlyDataProtocol, EarlyDataPrefix + enc, EarlyDataPrefix + enc}, 200, EarlyDataMalformed},
		{"twice, one line", []string{EarlyDataProtocol + ", " + EarlyDataPrefix + enc + ", " + EarlyDataPrefix + "AAAA"}, 200, EarlyDataMalformed},
		{"without the token", []string{RawStreamProtocol + ", " + EarlyDataPrefix + enc}, 200, EarlyDataMalformed},
		{"over the limit", []string{EarlyDataProtocol, EarlyDataPrefix + enc}, 99, EarlyDataTooLarge},
		{"over MaxEarlyData", []string{EarlyDataProtocol, edValue(make([]byte, MaxEarlyData+1))}, 1 << 20, EarlyDataTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseOffer(offerHeader(tc.lines...), tc.limit)
			var ee *EarlyDataError
			if !errors.As(err, &ee) || ee.Result != tc.want {
				t.Fatalf("ParseOffer: %+v, %v; want an *EarlyDataError %s", o, err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "ws: early data: ") || len(err.Error()) > 200 {
				t.Errorf("error %q: want a short one that says what is wrong", err)
			}
		})
	}
}

// At the limit is not over it; an endpoint that takes none does not look at the data at all,
// however broken, and says an offer was made.
func TestParseOfferLimits(t *testing.T) {
	data := make([]byte, 99)
	if o, err := ParseOffer(offerHeader(EarlyDataProtocol, edValue(data)), 99); err != nil || len(o.EarlyData) != 99 {
		t.Errorf("99 bytes at a limit of 99: %d bytes, %v", len(o.EarlyData), err)
	}
	o, err := ParseOffer(offerHeader(EarlyDataPrefix+"!!", EarlyDataPrefix), 0)
	if err != nil || !o.EarlyDataOffered || o.EarlyData != nil {
		t.Errorf("limit 0: %+v, %v; want an offer seen, not decoded, no error", o, err)
	}
	o, err = ParseOffer(offerHeader("chat, superchat"), 4096)
	if err != nil || o.EarlyDataOffered || !slices.Equal(o.Values, []string{"chat", "superchat"}) {
		t.Errorf("no early data: %+v, %v", o, err)
	}
}

// The server selects the best mode it can honour, then its own subprotocols; never the data.
func TestChoose(t *testing.T) {
	data := []byte{1, 2, 3}
	all := strings.Join(offerValues(data, true, "moonbridge"), ",")
	for _, tc := range []struct {
		name   string
		offer  string
		limit  int
		raw    bool
		others []string
		want   string
	}{
		{"both on", all, 64, true, nil, EarlyRawProtocol},
		{"early only", all, 64, false, nil, EarlyDataProtocol},
		{"raw only", all, 0, true, nil, RawStreamProtocol},
		{"neither: the server's own", all, 0, false, []string{"moonbridge"}, "moonbridge"},
		{"neither", all, 0, false, nil, ""},
		{"raw offered alone", RawStreamProtocol, 64, true, nil, RawStreamProtocol},
		{"raw offered, server without", RawStreamProtocol, 64, false, nil, ""},
		{"third party", "chat", 64, true, []string{"moonbridge"}, ""},
		{"third party, ours too", "chat, moonbridge", 64, true, []string{"moonbridge"}, "moonbridge"},
		{"a token without data", EarlyDataProtocol, 64, true, nil, ""},
		{"third party, listed", "chat, binary", 64, true, []string{"moonbridge", "binary"}, "binary"},
		{"listed in the server's order", "chat, binary", 64, true, []string{"chat", "binary"}, "chat"},
		{"any: the first offered", "chat, binary", 64, true, []string{"moonbridge", AnySubprotocol}, "chat"},
		{"any after a listed one", "chat, binary", 64, true, []string{"binary", AnySubprotocol}, "binary"},
		{"any skips moonbridge's values", "moonbridge-token.abc, moonbridge-raw, " + EarlyDataPrefix + "AQID, chat", 0, false,
			[]string{AnySubprotocol}, "chat"},
		{"any skips a value that is no token", "a/b, chat", 64, true, []string{AnySubprotocol}, "chat"},
		{"any: only moonbridge's values", "moonbridge-token.abc", 64, true, []string{AnySubprotocol}, ""},
		{"a mode before any", "chat, " + RawStreamProtocol, 64, true, []string{AnySubprotocol}, RawStreamProtocol},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseOffer(offerHeader(tc.offer), tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.choose(tc.raw, tc.others); got != tc.want {
				t.Errorf("chose %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOfferValues(t *testing.T) {
	for _, tc := range []struct {
		early []byte
		raw   bool
		sub   string
		want  []string
	}{
		{nil, false, "", nil},
		{nil, false, "chat", []string{"chat"}},
		{nil, true, "", []string{RawStreamProtocol}},
		{[]byte("hi"), false, "", []string{EarlyDataProtocol, EarlyDataPrefix + "aGk"}},
		{[]byte("hi"), true, "chat", []string{EarlyRawProtocol, EarlyDataProtocol, RawStreamProtocol, "chat", EarlyDataPrefix + "aGk"}},
	} {
		if got := offerValues(tc.early, tc.raw, tc.sub); !slices.Equal(got, tc.want) {
			t.Errorf("offerValues(%q, %v, %q) = %q, want %q", tc.early, tc.raw, tc.sub, got, tc.want)
		}
	}
}

// FuzzParseOffer: any header lines parse without a panic; taken data are within the limit, come
// from the one data value offered, and re-encode to it (the decoding is strict); a refusal is
// an *EarlyDataError with a refusing result.
func FuzzParseOffer(f *testing.F) {
	for _, seed := range []string{
		strings.Join(offerValues([]byte("\x10\x00\xff\x05"), true, ""), ", "),
		EarlyDataProtocol + "," + EarlyDataPrefix,
		EarlyDataProtocol + "," + EarlyDataPrefix + "AB",
		EarlyDataProtocol + "," + EarlyDataPrefix + "QUJD," + EarlyDataPrefix + "QUJD",
		"chat, moonbridge-token.abc, moonbridge",
		",,, ,",
	} {
		f.Add(seed, 64)
	}
	f.Fuzz(func(t *testing.T, line string, limit int) {
		limit = limit % (2 * MaxEarlyData)
		o, err := ParseOffer(offerHeader(strings.Split(line, "\n")...), limit)
		if err != nil {
			var ee *EarlyDataError
			if !errors.As(err, &ee) || (ee.Result != EarlyDataMalformed && ee.Result != EarlyDataTooLarge) {
				t.Fatalf("error %v is not a refusing *EarlyDataError", err)
			}
			return
		}
		if o.EarlyData == nil {
			return
		}
		if limit <= 0 || len(o.EarlyData) > min(limit, MaxEarlyData) || !o.offers(EarlyDataProtocol) {
			t.Fatalf("took %d bytes at limit %d", len(o.EarlyData), limit)
		}
		if !o.offers(edValue(o.EarlyData)) {
			t.Fatalf("the data taken, %q, re-encode to no value offered: %q", o.EarlyData, o.Values)
		}
	})
}

// A server's listed values are tokens that are not moonbridge's, or AnySubprotocol.
func TestCheckSubprotocol(t *testing.T) {
	for v, ok := range map[string]bool{"binary": true, "v1.chat": true, AnySubprotocol: true, "": false, "a b": false,
		"a,b": false, "moonbridge": false, "moonbridge-raw": false, "moonbridge-token.x": false} {
		if err := CheckSubprotocol(v); (err == nil) != ok {
			t.Errorf("CheckSubprotocol(%q) = %v, want ok %v", v, err, ok)
		}
	}
}
