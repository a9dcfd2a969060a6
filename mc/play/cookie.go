package play

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/moonbridge/moonbridge/mc"
)

// A cookie is a payload the client keeps for the server under a key across a transfer:
//
//	Store Cookie (clientbound, configuration and play)  key Identifier, payload ByteArray
//	Cookie Request (clientbound, login 0x05)            key Identifier
//	Cookie Response (serverbound, login 0x04)           key Identifier, present Bool,
//	                                                    [payload ByteArray]
//
// An Identifier is a String "namespace:path" (no colon: namespace minecraft) of a-z 0-9 _ - .
// and, in the path, /. A ByteArray is a VarInt length and the bytes.

const (
	// MaxCookiePayload is the largest cookie payload vanilla accepts.
	MaxCookiePayload = 5120
	// maxStringChars is vanilla's limit on a String field without one of its own, in UTF-16
	// units: Transfer's host, an Identifier.
	maxStringChars = 32767
)

// Reasons CheckTransferTarget, CheckCookie and ParseCookieResponse give; test them with
// errors.Is.
var (
	ErrBadHost        = errors.New("transfer host is empty, not UTF-8, or longer than 32767 characters")
	ErrBadPort        = errors.New("transfer port is 0")
	ErrBadCookieKey   = errors.New("cookie key is not an identifier (namespace:path of a-z 0-9 _ - . /)")
	ErrCookieTooLarge = errors.New("cookie payload longer than 5120 bytes")
)

// CheckTransferTarget says whether a client takes host and port in a Transfer: a host vanilla
// reads (a String of at most 32767 characters) and a port other than 0.
func CheckTransferTarget(host string, port uint16) error {
	switch {
	case host == "" || !utf8.ValidString(host):
		return ErrBadHost
	case len(host) > maxStringChars && utf16Len(host) > maxStringChars:
		return fmt.Errorf("%w: %d characters", ErrBadHost, utf16Len(host))
	case port == 0:
		return ErrBadPort
	}
	return nil
}

// CheckCookie says whether a client takes key and payload in a Store Cookie.
func CheckCookie(key string, payload []byte) error {
	if !isIdentifier(key) {
		return fmt.Errorf("%w: %q", ErrBadCookieKey, key)
	}
	if len(payload) > MaxCookiePayload {
		return fmt.Errorf("%w: %d bytes", ErrCookieTooLarge, len(payload))
	}
	return nil
}

// ParseCookieResponse reads a Cookie Response's fields: body is what follows packet id
// CookieResponseID (mc.PacketID splits a frame body so). payload aliases body; present is false
// when the client has no cookie under key. Faults are *mc.ProtocolError.
func ParseCookieResponse(body []byte) (key string, payload []byte, present bool, err error) {
	r := fieldReader{b: body}
	at := r.pos
	key = string(r.bytes(maxStringChars, mc.ErrTooLarge))
	if r.err == nil && !isIdentifier(key) {
		r.failAt(at, ErrBadCookieKey)
	}
	present = r.bool()
	if present {
		payload = r.bytes(MaxCookiePayload, ErrCookieTooLarge)
	}
	if r.err == nil && r.pos != len(body) {
		r.failAt(r.pos, mc.ErrTrailingBytes)
	}
	if r.err != nil {
		return "", nil, false, r.err
	}
	return key, payload, present, nil
}

// isIdentifier reports whether s is an identifier vanilla parses; it is ASCII, so its length in
// bytes is its length in characters.
func isIdentifier(s string) bool {
	namespace, path, found := strings.Cut(s, ":")
	if !found {
		namespace, path = "", s
	}
	return len(s) <= maxStringChars && path != "" && identifierChars(namespace, "") && identifierChars(path, "/")
}

func identifierChars(s, extra string) bool {
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("_-."+extra, c) >= 0) {
			return false
		}
	}
	return true
}

// utf16Len counts s in UTF-16 units, as vanilla's String limits do.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// fieldReader reads the fields of a whole packet body; its first fault sticks. varInt and bytes
// run only while there is none (ParseCookieResponse reads a payload only when present).
type fieldReader struct {
	b   []byte
	pos int
	err error
}

func (r *fieldReader) failAt(at int, reason error) {
	if r.err == nil {
		r.err = &mc.ProtocolError{Layer: "cookie response", Offset: at, Err: reason}
	}
}

func (r *fieldReader) varInt() int32 {
	v, n, err := mc.ReadVarInt(r.b[r.pos:])
	switch {
	case err == mc.ErrNeedMore:
		r.failAt(r.pos, mc.ErrTruncated)
	case err != nil:
		r.failAt(r.pos, errors.Unwrap(err)) // ReadVarInt's *mc.ProtocolError: keep its reason
	}
	r.pos += n
	return v
}

func (r *fieldReader) bool() bool {
	if r.err == nil && r.pos == len(r.b) {
		r.failAt(r.pos, mc.ErrTruncated)
	}
	if r.err != nil {
		return false
	}
	v := r.b[r.pos]
	if v > 1 {
		r.failAt(r.pos, mc.ErrMalformed)
	}
	r.pos++
	return v == 1
}

// bytes reads a VarInt length and that many bytes, at most limit of them.
func (r *fieldReader) bytes(limit int, tooLong error) []byte {
	at := r.pos
	n := int(r.varInt())
	switch {
	case r.err != nil:
		return nil
	case n < 0:
		r.failAt(at, mc.ErrMalformed)
	case n > limit:
		r.failAt(at, tooLong)
	case n > len(r.b)-r.pos:
		r.failAt(at, mc.ErrTruncated)
	default:
		r.pos += n
		return r.b[r.pos-n : r.pos]
	}
	return nil
}
