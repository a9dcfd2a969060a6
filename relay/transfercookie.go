package relay

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"
)

// TransferCookieKey is the cookie a drain stores on a player before its Transfer, and the one
// a transfer login is asked for.
const TransferCookieKey = "moonbridge:transfer"

// DefaultTransferCookieTTL is how long a transfer cookie is good for: the client joins the next
// instance within seconds; a minute covers a slow one.
const DefaultTransferCookieTTL = time.Minute

// A transfer cookie says "this instance moved this player on a drain, until then":
//
//	+---------+----------------+----------+------------+-------------------------------+
//	| version | expiry         | name len | name       | HMAC-SHA256(secret, before)   |
//	| 1 byte  | 8 bytes, Unix s| 1 byte   | <= 16 bytes| 32 bytes                      |
//	+---------+----------------+----------+------------+-------------------------------+
//
// The client keeps it and shows it to whoever asks after the transfer; an instance with the same
// secret believes it. It names the player only: online mode still asks the session server.
const (
	cookieVersion = 1
	cookieMACLen  = sha256.Size
	maxCookieName = 16
)

// TransferCookies signs and checks transfer cookies with a secret the instances share
// (shutdown.transfer_secret_file).
type TransferCookies struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// NewTransferCookies signs with secret; ttl 0 is DefaultTransferCookieTTL.
func NewTransferCookies(secret []byte, ttl time.Duration) *TransferCookies {
	if ttl <= 0 {
		ttl = DefaultTransferCookieTTL
	}
	return &TransferCookies{secret: secret, ttl: ttl, now: time.Now}
}

// issue is the cookie for the player name; nil without cookies or for a name that does not fit.
func (c *TransferCookies) issue(name string) []byte {
	if c == nil || len(name) > maxCookieName {
		return nil
	}
	b := []byte{cookieVersion}
	b = binary.BigEndian.AppendUint64(b, uint64(c.now().Add(c.ttl).Unix()))
	b = append(b, byte(len(name)))
	b = append(b, name...)
	return append(b, c.mac(b)...)
}

// Key is the cookie's identifier (auth.CookieChecker).
func (c *TransferCookies) Key() string { return TransferCookieKey }

// Verify checks a cookie a transfer login showed for the player name: nil when this or another
// instance with the same secret issued it for name and it has not expired.
func (c *TransferCookies) Verify(name string, cookie []byte) error {
	const head = 1 + 8 + 1
	if len(cookie) < head+cookieMACLen || cookie[0] != cookieVersion {
		return ErrCookieMalformed
	}
	n := int(cookie[head-1])
	if len(cookie) != head+n+cookieMACLen {
		return ErrCookieMalformed
	}
	body, mac := cookie[:head+n], cookie[head+n:]
	switch {
	case !hmac.Equal(mac, c.mac(body)):
		return ErrCookieForged
	case string(body[head:]) != name:
		return ErrCookieOtherPlayer
	case c.now().Unix() > int64(binary.BigEndian.Uint64(cookie[1:9])):
		return ErrCookieExpired
	}
	return nil
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
)
