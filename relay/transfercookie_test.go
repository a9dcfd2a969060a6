package relay

import (
	"errors"
	"testing"
	"time"
)

// TestTransferCookieIsBelievedOnlyAsIssued: a cookie checks out for its player within its time
// at any instance with the secret, and for nothing else: another secret, another player, after
// its expiry, one byte changed, cut short.
func TestTransferCookieIsBelievedOnlyAsIssued(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	issuer := NewTransferCookies([]byte("shared secret"), 0)
	issuer.now = func() time.Time { return now }
	cookie := issuer.issue("Steve")
	other := NewTransferCookies([]byte("shared secret"), time.Hour)
	other.now = issuer.now
	if err := other.Verify("Steve", cookie); err != nil {
		t.Fatalf("a fresh cookie at another instance with the secret: %v", err)
	}
	flipped := append([]byte(nil), cookie...)
	flipped[len(flipped)/2] ^= 1
	late := NewTransferCookies([]byte("shared secret"), 0)
	late.now = func() time.Time { return now.Add(DefaultTransferCookieTTL + time.Second) }
	for _, c := range []struct {
		name    string
		checker *TransferCookies
		player  string
		cookie  []byte
		want    error
	}{
		{"another secret", NewTransferCookies([]byte("other secret"), 0), "Steve", cookie, ErrCookieForged},
		{"another player", other, "Alex", cookie, ErrCookieOtherPlayer},
		{"expired", late, "Steve", cookie, ErrCookieExpired},
		{"a byte changed", other, "Steve", flipped, ErrCookieForged},
		{"cut short", other, "Steve", cookie[:len(cookie)-1], ErrCookieMalformed},
		{"empty", other, "Steve", nil, ErrCookieMalformed},
	} {
		if err := c.checker.Verify(c.player, c.cookie); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestNoTransferCookieWithoutASecret: without cookies, and for a name longer than a player's,
// no cookie is issued (the Transfer goes out alone).
func TestNoTransferCookieWithoutASecret(t *testing.T) {
	var none *TransferCookies
	if c := none.issue("Steve"); c != nil {
		t.Errorf("cookie without a secret: %x", c)
	}
	if c := NewTransferCookies([]byte("s"), 0).issue("NameLongerThan16Chars"); c != nil {
		t.Errorf("cookie for an over-long name: %x", c)
	}
}
