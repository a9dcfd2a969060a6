package ws

import (
	"fmt"
	"strings"
)

// CheckSubprotocol says why v cannot be one of a server's Subprotocols, or nil: it must be
// AnySubprotocol or a token (RFC 6455 section 4.1) that is not moonbridge's (ReservedPrefix).
func CheckSubprotocol(v string) error {
	switch {
	case v == AnySubprotocol:
		return nil
	case !isToken(v):
		return fmt.Errorf("%q: want a token such as binary (letters, digits, !#$%%&'*+-.^_`|~), or %q for the first one offered", v, AnySubprotocol)
	case strings.HasPrefix(v, ReservedPrefix):
		return fmt.Errorf("%q: values starting with %q are moonbridge's own, selected without being listed", v, ReservedPrefix)
	}
	return nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTokenChar(s[i]) {
			return false
		}
	}
	return true
}

// IsTokenChar says whether c may appear in an HTTP token, such as a method or a subprotocol
// (RFC 9110 section 5.6.2).
func IsTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
