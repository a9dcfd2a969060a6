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

// A transfer cookie says "this instance moved this player, who had joined at host, until then":
//
//	+---------+----------+---------+----------+-----------+----------+------------+----------------+
//	| version | expiry   | nonce   | name len | name      | host len | host       | HMAC-SHA256    |
//	| 1 byte  | 8 bytes, | 8 bytes | 1 byte   | <= 16     | 1 byte   | <= 255     | (secret, all   |
//	|         | Unix s   |         |          | bytes     |          | bytes      | before), 32 B  |
//	+---------+----------+---------+----------+-----------+----------+------------+----------------+
//
// The client keeps it and shows it to whoever asks after the transfer; an instance with the same
// secret believes it once (cookieSeen). It names the player only: online mode still asks the
// session server. The host is the one the player's handshake named where it joined (the route's
// name, "creative.example.net"), so that the instance it lands on routes it there and not by the
// transfer target's name (transferroute.go); "" when it named none that fits. Versions 2 (no
// host) and 1 (no host, no nonce), issued by earlier releases, are still believed (once, as any),
// so that a rolling upgrade's drains move players onto the new release, routed by the
// transfer target's name as those releases did; an earlier release refuses version 3 as
// malformed, and that player logs in there as any other.
const (
	cookieVersion   = 3
	cookieVersionV2 = 2 // no host
	cookieVersionV1 = 1 // no host, no nonce
	cookieNonceLen  = 8
	cookieMACLen    = sha256.Size
	maxCookieName   = 16
	maxCookieHost   = 255
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

// issue is the cookie for the player name, who joined at host; nil without cookies or for a
// name that does not fit. A host longer than a cookie holds is left out: that player lands by
// the transfer target's name.
func (c *TransferCookies) issue(name, host string) []byte {
	if c == nil || len(name) > maxCookieName {
		return nil
	}
	if len(host) > maxCookieHost {
		host = ""
	}
	b := []byte{cookieVersion}
	b = binary.BigEndian.AppendUint64(b, uint64(c.now().Add(c.ttl).Unix()))
	b = append(b, make([]byte, cookieNonceLen)...)
	rand.Read(b[len(b)-cookieNonceLen:])
	b = append(b, byte(len(name)))
	b = append(b, name...)
	b = append(b, byte(len(host)))
	b = append(b, host...)
	return append(b, c.mac(b)...)
}

// Key is the cookie's identifier (auth.CookieChecker).
func (c *TransferCookies) Key() string { return TransferCookieKey }

// Verify checks a cookie a transfer login showed for the player name: nil when this or another
// instance with the same secret issued it for name, it has not expired, and this instance has
// not believed it before.
func (c *TransferCookies) Verify(name string, cookie []byte) error {
	_, err := c.check(name, cookie)
	return err
}

// check is Verify that also says the host the cookie names ("" for none, or an earlier
// version's): only when err is nil.
func (c *TransferCookies) check(name string, cookie []byte) (host string, err error) {
	f, err := splitCookie(cookie)
	if err != nil {
		return "", err
	}
	expiry, now := int64(binary.BigEndian.Uint64(f.body[1:9])), c.now().Unix()
	switch {
	case !hmac.Equal(f.mac, c.mac(f.body)):
		return "", ErrCookieForged
	case f.name != name:
		return "", ErrCookieOtherPlayer
	case now > expiry:
		return "", ErrCookieExpired
	}
	if err := c.seen.Load().first(f.mac, expiry, now); err != nil {
		return "", err
	}
	return f.host, nil
}

// cookieFields are a cookie's parts: what its MAC covers, the player name and host in it, and
// the MAC.
type cookieFields struct {
	body       []byte
	name, host string
	mac        []byte
}

// splitCookie cuts a cookie of any version into its fields.
func splitCookie(cookie []byte) (cookieFields, error) {
	head := 1 + 8
	switch {
	case len(cookie) == 0:
		return cookieFields{}, ErrCookieMalformed
	case cookie[0] == cookieVersion || cookie[0] == cookieVersionV2:
		head += cookieNonceLen
	case cookie[0] != cookieVersionV1:
		return cookieFields{}, ErrCookieMalformed
	}
	name, at, ok := cookieString(cookie, head)
	var host string
	if ok && cookie[0] == cookieVersion {
		host, at, ok = cookieString(cookie, at)
	}
	if !ok || len(cookie) != at+cookieMACLen {
		return cookieFields{}, ErrCookieMalformed
	}
	return cookieFields{body: cookie[:at], name: name, host: host, mac: cookie[at:]}, nil
}

// cookieString reads the length-prefixed string at b[at:]: the string and where what follows
// it starts; false when b is too short for it and a MAC behind.
func cookieString(b []byte, at int) (string, int, bool) {
	if len(b) < at+1+cookieMACLen {
		return "", 0, false
	}
	end := at + 1 + int(b[at])
	if len(b) < end+cookieMACLen {
		return "", 0, false
	}
	return string(b[at+1 : end]), end, true
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
