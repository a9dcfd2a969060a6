package access

import "fmt"

// Mode says whether a route wants a token.
type Mode string

const (
	TokensOff      Mode = "off"      // tokens are not read; the default
	TokensOptional Mode = "optional" // a token is checked when one is sent; none is fine
	TokensRequired Mode = "required" // no session without a valid token
)

// ParseMode reads a mode; "" is TokensOff.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", TokensOff:
		return TokensOff, nil
	case TokensOptional, TokensRequired:
		return Mode(s), nil
	}
	return "", fmt.Errorf("tokens: %q: want required, optional or off", s)
}
