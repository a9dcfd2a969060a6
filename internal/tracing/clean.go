package tracing

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of text that leaves in a span: what a client wrote (a host name, a player name) and
// error texts, which may quote it.
const (
	maxClientText = 64
	maxErrorText  = 256
)

// clean is s cut to at most max bytes (at a character's start) with anything that is not a
// printable character (controls, invalid UTF-8) replaced by '?', so that a client cannot
// write lines or escapes into an owner's tracing backend, nor make a span large.
func clean(s string, max int) string {
	if len(s) <= max && isPrintable(s) {
		return s // the common case: nothing to copy
	}
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			r = '?'
		}
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
