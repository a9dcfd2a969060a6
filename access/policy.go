package access

import "github.com/moonbridge/moonbridge/internal/enum"

// Mode says whether a route wants a token.
type Mode string

const (
	TokensOff      Mode = "off"      // tokens are not read; the default
	TokensOptional Mode = "optional" // a token is checked when one is sent; none is fine
	TokensRequired Mode = "required" // no session without a valid token
)

var modes = []Mode{TokensOff, TokensOptional, TokensRequired}

// ParseMode reads a mode; "" is TokensOff.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return TokensOff, nil
	}
	return enum.Parse([]byte(s), modes...)
}

// UnmarshalText reads off, optional or required.
func (m *Mode) UnmarshalText(text []byte) (err error) {
	*m, err = enum.Parse(text, modes...)
	return err
}

func (m Mode) String() string { return string(m) }
