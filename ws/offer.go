package ws

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// The Sec-WebSocket-Protocol values of moonbridge's own bridge and server (doc.go, "Early data
// and the raw stream"). The three mode tokens are what a server selects; the data value is
// offered beside them and never selected.
const (
	EarlyDataProtocol = "moonbridge-ed"     // the early data were taken; frames as usual
	RawStreamProtocol = "moonbridge-raw"    // no early data; raw bytes after the 101
	EarlyRawProtocol  = "moonbridge-ed-raw" // both
	// EarlyDataPrefix starts the value that carries the early data: the prefix, then the bytes in
	// base64url without padding (RFC 4648 section 5), whose alphabet is all HTTP token characters.
	EarlyDataPrefix = "moonbridge-ed."
	// AnySubprotocol in a server's Subprotocols selects, at its place in the list, the first value
	// the client offered that is not moonbridge's (ReservedPrefix).
	AnySubprotocol = "*"
	// ReservedPrefix starts every value of moonbridge's own (modes, early data, the relay's token
	// and stream values): AnySubprotocol never selects one, and a server does not list one among
	// its others.
	ReservedPrefix = "moonbridge"
)

// MaxEarlyData is the most early data a client offers or a server takes: 4 KiB, 5,462
// characters of base64url, well inside DefaultMaxHeaderBytes. A Minecraft handshake and Login
// Start are a few hundred bytes (about 1.1 KiB with a 1.19 chat key).
const MaxEarlyData = 4 << 10

// EarlyDataResult is what became of the early data an upgrade request offered: the label of the
// relay's moonbridge_ws_early_data_total.
type EarlyDataResult string

const (
	EarlyDataUsed      EarlyDataResult = "used"      // taken: the stream starts with them
	EarlyDataOff       EarlyDataResult = "off"       // the endpoint takes none: not selected, the client sends them
	EarlyDataMalformed EarlyDataResult = "malformed" // refused with 400
	EarlyDataTooLarge  EarlyDataResult = "too_large" // refused with 431
)

// EarlyDataResults are every result, for metrics that show each from the start.
var EarlyDataResults = []EarlyDataResult{EarlyDataUsed, EarlyDataOff, EarlyDataMalformed, EarlyDataTooLarge}

// EarlyDataError is an offer of early data that a server refuses: Result is EarlyDataMalformed
// or EarlyDataTooLarge.
type EarlyDataError struct {
	Result EarlyDataResult
	Reason string
}

func (e *EarlyDataError) Error() string { return "ws: early data: " + e.Reason }

// status is the HTTP answer to the refused request.
func (e *EarlyDataError) status() int {
	if e.Result == EarlyDataTooLarge {
		return http.StatusRequestHeaderFieldsTooLarge
	}
	return http.StatusBadRequest
}

func malformedEarlyData(format string, args ...any) *EarlyDataError {
	return &EarlyDataError{Result: EarlyDataMalformed, Reason: fmt.Sprintf(format, args...)}
}

// Offer is what an upgrade request's Sec-WebSocket-Protocol lines offered.
type Offer struct {
	Values []string // every value, in order, the data value included
	// EarlyDataOffered: a value starts with EarlyDataPrefix.
	EarlyDataOffered bool
	// EarlyData is the data value's bytes, decoded; nil when none was offered or the endpoint
	// takes none (ParseOffer's limit 0), which leaves it undecoded.
	EarlyData []byte
}

// ParseOffer reads every Sec-WebSocket-Protocol line of h (values separated by commas, spaces
// around them dropped). limit is the most early data the endpoint takes; 0 takes none, and
// then the data value is not looked at. With a limit, an offer of early data is refused (an
// *EarlyDataError) when the data value is empty, not base64url without padding, decodes to more
// than limit bytes, comes twice, or is offered without EarlyDataProtocol, the one token that
// can say it was taken.
func ParseOffer(h http.Header, limit int) (Offer, error) {
	var o Offer
	data, tokenOffered := "", false
	for _, line := range h.Values("Sec-WebSocket-Protocol") {
		for _, v := range strings.Split(line, ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				continue
			}
			o.Values = append(o.Values, v)
			tokenOffered = tokenOffered || v == EarlyDataProtocol
			if encoded, ok := strings.CutPrefix(v, EarlyDataPrefix); ok {
				if o.EarlyDataOffered && limit > 0 {
					return Offer{}, malformedEarlyData("offered twice")
				}
				data, o.EarlyDataOffered = encoded, true
			}
		}
	}
	if !o.EarlyDataOffered || limit <= 0 {
		return o, nil
	}
	if !tokenOffered {
		return Offer{}, malformedEarlyData("offered without %s", EarlyDataProtocol)
	}
	var err error
	o.EarlyData, err = decodeEarlyData(data, min(limit, MaxEarlyData))
	return o, err
}

// decodeEarlyData decodes a data value's base64url; its length and its alphabet are checked
// before anything is decoded.
func decodeEarlyData(encoded string, limit int) ([]byte, error) {
	switch n := base64.RawURLEncoding.DecodedLen(len(encoded)); {
	case encoded == "":
		return nil, malformedEarlyData("empty")
	case n > limit:
		return nil, &EarlyDataError{Result: EarlyDataTooLarge,
			Reason: fmt.Sprintf("%d bytes or more, over this endpoint's limit of %d", n, limit)}
	}
	if i := strings.IndexFunc(encoded, notBase64URL); i >= 0 {
		// Checked apart: Go's decoder skips CR and LF, even in strict mode.
		return nil, malformedEarlyData("not base64url: byte %#x at %d", encoded[i], i)
	}
	data, err := base64.RawURLEncoding.Strict().DecodeString(encoded)
	if err != nil {
		return nil, malformedEarlyData("not base64url without padding: %v", err)
	}
	return data, nil
}

// notBase64URL says r is not in base64url's alphabet (RFC 4648 section 5).
func notBase64URL(r rune) bool {
	return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '_')
}

// choose is the value a server selects: the best mode token offered that it can honour (an
// early data token only with the early data decoded, a raw token only with raw), then the first
// of others (the server's subprotocols, in its order) that was offered, AnySubprotocol standing
// for the first offered value not moonbridge's; "" for none.
func (o Offer) choose(raw bool, others []string) string {
	for _, token := range modeTokens {
		if allowed(token, o.EarlyData != nil, raw) && o.offers(token) {
			return token
		}
	}
	for _, p := range others {
		if p == AnySubprotocol {
			if v, ok := o.firstForeign(); ok {
				return v
			}
		} else if o.offers(p) {
			return p
		}
	}
	return ""
}

// firstForeign is the first value offered that is not moonbridge's (ReservedPrefix) and is a
// token, as RFC 6455 section 4.1 wants a subprotocol to be: the answer echoes it.
func (o Offer) firstForeign() (string, bool) {
	for _, v := range o.Values {
		if !strings.HasPrefix(v, ReservedPrefix) && isToken(v) {
			return v, true
		}
	}
	return "", false
}

func (o Offer) offers(v string) bool {
	for _, got := range o.Values {
		if got == v {
			return true
		}
	}
	return false
}

// modeTokens are the mode tokens, best first.
var modeTokens = [...]string{EarlyRawProtocol, EarlyDataProtocol, RawStreamProtocol}

// modesOf says what a selected value turns on.
func modesOf(subprotocol string) (early, raw bool) {
	switch subprotocol {
	case EarlyRawProtocol:
		return true, true
	case EarlyDataProtocol:
		return true, false
	case RawStreamProtocol:
		return false, true
	}
	return false, false
}

// allowed says whether v is a mode token whose modes are all among those on offer: early data,
// the raw stream.
func allowed(v string, early, raw bool) bool {
	e, r := modesOf(v)
	return (e || r) && (!e || early) && (!r || raw)
}

// offerValues is what a client offers, in preference order: the mode tokens that the early data
// and raw asked for allow, then subprotocol, then the data value.
func offerValues(early []byte, raw bool, subprotocol string) []string {
	var vs []string
	for _, token := range modeTokens {
		if allowed(token, len(early) > 0, raw) {
			vs = append(vs, token)
		}
	}
	if subprotocol != "" {
		vs = append(vs, subprotocol)
	}
	if len(early) > 0 {
		vs = append(vs, EarlyDataPrefix+base64.RawURLEncoding.EncodeToString(early))
	}
	return vs
}
