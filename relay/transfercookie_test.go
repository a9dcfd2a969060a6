package relay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
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
	cookie := issuer.issue("Steve", "")
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
	if c := none.issue("Steve", ""); c != nil {
		t.Errorf("cookie without a secret: %x", c)
	}
	if c := NewTransferCookies([]byte("s"), 0).issue("NameLongerThan16Chars", ""); c != nil {
		t.Errorf("cookie for an over-long name: %x", c)
	}
}

// TestTransferCookieIsBelievedOncePerInstance: a cookie is believed the first time an instance
// sees it and refused as replayed after (until it expires, when it is refused as expired);
// another instance, with a seen-set of its own, believes it once too. Two cookies for the same
// player in the same second differ (their nonce), so each is believed once.
func TestTransferCookieIsBelievedOncePerInstance(t *testing.T) {
	issuer := NewTransferCookies([]byte("shared secret"), 0)
	cookie, again := issuer.issue("Steve", ""), issuer.issue("Steve", "")
	if bytes.Equal(cookie, again) {
		t.Fatalf("two cookies for Steve are the same bytes %x: no nonce", cookie)
	}
	here, there := NewTransferCookies([]byte("shared secret"), 0), NewTransferCookies([]byte("shared secret"), 0)
	if err := here.Verify("Steve", cookie); err != nil {
		t.Fatalf("first showing: %v", err)
	}
	if err := here.Verify("Steve", cookie); !errors.Is(err, ErrCookieReplayed) {
		t.Errorf("second showing at the same instance: %v, want %v", err, ErrCookieReplayed)
	}
	if err := here.Verify("Steve", again); err != nil {
		t.Errorf("another cookie for the same player: %v", err)
	}
	if err := there.Verify("Steve", cookie); err != nil {
		t.Errorf("first showing at another instance: %v", err)
	}
}

// TestTransferCookieOfTheOlderFormatIsBelievedOnce: a cookie of format 1 (no nonce), as an
// instance of an earlier release issues during a rolling upgrade, is still believed, and
// replaying it is refused as any other.
func TestTransferCookieOfTheOlderFormatIsBelievedOnce(t *testing.T) {
	c := NewTransferCookies([]byte("shared secret"), 0)
	b := []byte{1}
	b = binary.BigEndian.AppendUint64(b, uint64(time.Now().Add(time.Minute).Unix()))
	b = append(append(b, 5), "Steve"...)
	old := append(b, c.mac(b)...)
	if err := c.Verify("Steve", old); err != nil {
		t.Fatalf("a format 1 cookie: %v", err)
	}
	if err := c.Verify("Steve", old); !errors.Is(err, ErrCookieReplayed) {
		t.Errorf("a format 1 cookie again: %v, want %v", err, ErrCookieReplayed)
	}
}

// TestTransferCookieSeenSetIsBounded: the seen-set holds at most its bound; a valid cookie that
// finds it full of cookies that have not expired is refused (the player logs in as any, through
// the meter), and once they expired, room is made for new ones.
func TestTransferCookieSeenSetIsBounded(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := NewTransferCookies([]byte("shared secret"), 0)
	c.now = func() time.Time { return now }
	seen := newCookieSeen(3)
	c.seen.Store(seen)
	for i := range 3 {
		if err := c.Verify("Steve", c.issue("Steve", "")); err != nil {
			t.Fatalf("cookie %d: %v", i, err)
		}
	}
	if err := c.Verify("Steve", c.issue("Steve", "")); !errors.Is(err, ErrCookieSeenFull) {
		t.Errorf("a fourth cookie with three remembered: %v, want %v", err, ErrCookieSeenFull)
	}
	now = now.Add(DefaultTransferCookieTTL + time.Second)
	if err := c.Verify("Steve", c.issue("Steve", "")); err != nil {
		t.Errorf("a cookie after the three expired: %v", err)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if n := len(seen.until); n != 1 {
		t.Errorf("seen-set holds %d, want 1 (the expired ones dropped)", n)
	}
}

// TestTransferCookieCarriesTheHost: a cookie names the host the player joined at, for the
// instance it lands on; a host longer than a cookie holds is left out, and a cookie of format 2
// (an earlier release's, no host) is believed without one.
func TestTransferCookieCarriesTheHost(t *testing.T) {
	c := NewTransferCookies([]byte("shared secret"), 0)
	long := strings.Repeat("a", maxCookieHost+1)
	for _, host := range []string{"creative.example.net", "", long} {
		got, err := c.check("Steve", c.issue("Steve", host))
		want := host
		if host == long {
			want = ""
		}
		if err != nil || got != want {
			t.Errorf("cookie for host %.30q: host %q, %v; want %q", host, got, err, want)
		}
	}
	b := []byte{2}
	b = binary.BigEndian.AppendUint64(b, uint64(time.Now().Add(time.Minute).Unix()))
	b = append(b, make([]byte, cookieNonceLen)...)
	b = append(append(b, 5), "Steve"...)
	if host, err := c.check("Steve", append(b, c.mac(b)...)); err != nil || host != "" {
		t.Errorf("a format 2 cookie: host %q, %v; want believed, no host", host, err)
	}
}
