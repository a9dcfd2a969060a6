package relay

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/mc/auth"
)

// TransferCookieKey is the cookie a drain stores on a player before its Transfer, and the one
// a transfer login is asked for.
const TransferCookieKey = "moonbridge:transfer"

// DefaultTransferCookieTTL is how long a transfer cookie is good for: the client joins the next
// instance within seconds; a minute covers a slow one.
const DefaultTransferCookieTTL = time.Minute

// A transfer cookie says "this instance moved this player on a drain, until then":
//
//	+---------+----------------+---------+----------+------------+-----------------------------+
//	| version | expiry         | nonce   | name len | name       | HMAC-SHA256(secret, before) |
//	| 1 byte  | 8 bytes, Unix s| 8 bytes | 1 byte   | <= 16 bytes| 32 bytes                    |
//	+---------+----------------+---------+----------+------------+-----------------------------+
//
// The client keeps it and shows it to whoever asks after the transfer; an instance with the same
// secret believes it once (cookieSeen). It names the player only: online mode still asks the
// session server. Version 1, issued by earlier releases, is the same without the nonce; it is
// still believed (once, as any), so that a rolling upgrade's drains move players onto the new
// release; an earlier release refuses version 2 as malformed, and that player logs in as any.
const (
	cookieVersion   = 2
	cookieVersionV1 = 1 // no nonce
	cookieNonceLen  = 8
	cookieMACLen    = sha256.Size
	maxCookieName   = 16
)

// TransferCookies signs and checks transfer cookies with a secret the instances share
// (shutdown.transfer_secret_file).
type TransferCookies struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
	// seen remembers the cookies believed here: its own until a Server gives it the one it keeps
	// across reloads (Server.attachLogins).
	seen atomic.Pointer[cookieSeen]
}

// NewTransferCookies signs with secret; ttl 0 is DefaultTransferCookieTTL.
func NewTransferCookies(secret []byte, ttl time.Duration) *TransferCookies {
	if ttl <= 0 {
		ttl = DefaultTransferCookieTTL
	}
	c := &TransferCookies{secret: secret, ttl: ttl, now: time.Now}
	c.seen.Store(newCookieSeen(maxSeenCookies))
	return c
}

// issue is the cookie for the player name; nil without cookies or for a name that does not fit.
func (c *TransferCookies) issue(name string) []byte {
	if c == nil || len(name) > maxCookieName {
		return nil
	}
	b := []byte{cookieVersion}
	b = binary.BigEndian.AppendUint64(b, uint64(c.now().Add(c.ttl).Unix()))
	b = append(b, make([]byte, cookieNonceLen)...)
	rand.Read(b[len(b)-cookieNonceLen:])
	b = append(b, byte(len(name)))
	b = append(b, name...)
	return append(b, c.mac(b)...)
}

// Key is the cookie's identifier (auth.CookieChecker).
func (c *TransferCookies) Key() string { return TransferCookieKey }

// Verify checks a cookie a transfer login showed for the player name: nil when this or another
// instance with the same secret issued it for name, it has not expired, and this instance has
// not believed it before.
func (c *TransferCookies) Verify(name string, cookie []byte) error {
	body, who, mac, err := splitCookie(cookie)
	if err != nil {
		return err
	}
	expiry, now := int64(binary.BigEndian.Uint64(body[1:9])), c.now().Unix()
	switch {
	case !hmac.Equal(mac, c.mac(body)):
		return ErrCookieForged
	case who != name:
		return ErrCookieOtherPlayer
	case now > expiry:
		return ErrCookieExpired
	}
	return c.seen.Load().first(mac, expiry, now)
}

// splitCookie cuts a cookie of either version into what its MAC covers, the player name in it,
// and the MAC.
func splitCookie(cookie []byte) (body []byte, name string, mac []byte, err error) {
	head := 1 + 8 + 1
	switch {
	case len(cookie) == 0:
		return nil, "", nil, ErrCookieMalformed
	case cookie[0] == cookieVersion:
		head += cookieNonceLen
	case cookie[0] != cookieVersionV1:
		return nil, "", nil, ErrCookieMalformed
	}
	if len(cookie) < head+cookieMACLen {
		return nil, "", nil, ErrCookieMalformed
	}
	n := int(cookie[head-1])
	if len(cookie) != head+n+cookieMACLen {
		return nil, "", nil, ErrCookieMalformed
	}
	return cookie[:head+n], string(cookie[head : head+n]), cookie[head+n:], nil
}

func (c *TransferCookies) mac(b []byte) []byte {
	h := hmac.New(sha256.New, c.secret)
	h.Write(b)
	return h.Sum(nil)
}

// Why a transfer cookie is not believed.
var (
	ErrCookieMalformed   = errors.New("transfer cookie: malformed")
	ErrCookieForged      = errors.New("transfer cookie: not signed with this secret")
	ErrCookieOtherPlayer = errors.New("transfer cookie: issued for another player")
	ErrCookieExpired     = errors.New("transfer cookie: expired")
	// ErrCookieReplayed is a cookie this instance believed before (auth.ErrCookieReplayed).
	ErrCookieReplayed = fmt.Errorf("transfer cookie: %w", auth.ErrCookieReplayed)
	// ErrCookieSeenFull is a valid cookie this instance has no room to remember: refused, so
	// that the player logs in as any other rather than be believed without the replay check.
	ErrCookieSeenFull = errors.New("transfer cookie: too many cookies to remember")
)
