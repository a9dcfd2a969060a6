package auth

import (
	"bufio"
	"bytes"
	"errors"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/play"
)

// CookieChecker checks the cookie a transfer login shows: the one another instance stored on
// the player before its Transfer (relay.TransferCookies).
type CookieChecker interface {
	Key() string                             // the cookie's identifier, e.g. moonbridge:transfer
	Verify(name string, cookie []byte) error // nil: believed for the player name
}

// ErrCookieReplayed is what a CookieChecker's Verify wraps for a cookie it believed before: a
// cookie is believed once (it skips the meter once).
var ErrCookieReplayed = errors.New("shown before")

// Cookie is what a login's cookie check found.
type Cookie uint8

const (
	CookieNotAsked Cookie = iota // no transfer login, or no checker
	CookieValid                  // signed, for this player, not expired
	CookieAbsent                 // the client had none for the key
	CookieRejected               // there, and not believed (forged, expired, another player's)
	CookieReplayed               // there, valid, and believed before (ErrCookieReplayed)
)

// askCookie asks the player, after Login Start of a transfer login, for the transfer cookie and
// checks it; a read error or a malformed answer ends the login as any bad packet does.
func (c *Config) askCookie(pc PlayerConn, p *Player) error {
	if err := pc.Send(play.AppendCookieRequest(nil, c.TransferCookies.Key())); err != nil {
		return err
	}
	payload, present, err := ReadCookieResponse(pc.R, c.TransferCookies.Key())
	switch {
	case err != nil:
		return p.readFailed(pc, "Cookie Response", err)
	case !present:
		p.Cookie = CookieAbsent
	default:
		p.Cookie = Verdict(c.TransferCookies.Verify(p.Start.Name, payload))
	}
	return nil
}

// ReadCookieResponse reads the login Cookie Response the player sends after a Cookie Request
// for key: the cookie's payload, and false when the client has none under key. A frame that is
// not a Cookie Response, or a malformed one, is an error (*mc.ProtocolError).
func ReadCookieResponse(r *bufio.Reader, key string) (payload []byte, present bool, err error) {
	resp, err := mc.ReadParsed(r, func(b []byte) (cookieResponse, int, error) {
		body, n, err := mc.ReadFrame(b, maxCookieFrame)
		if err != nil {
			return cookieResponse{}, 0, err
		}
		id, fields, err := mc.PacketID(body)
		switch {
		case err != nil:
			return cookieResponse{}, 0, err
		case id != play.CookieResponseID:
			return cookieResponse{}, 0, &mc.ProtocolError{Layer: "cookie response", Err: mc.ErrPacketID}
		}
		key, payload, present, err := play.ParseCookieResponse(fields)
		return cookieResponse{key: key, payload: bytes.Clone(payload), present: present}, n, err
	})
	if err != nil || !resp.present || resp.key != key {
		return nil, false, err
	}
	return resp.payload, true, nil
}

// Verdict is the Cookie a checker's Verify error makes.
func Verdict(err error) Cookie {
	switch {
	case err == nil:
		return CookieValid
	case errors.Is(err, ErrCookieReplayed):
		return CookieReplayed
	}
	return CookieRejected
}

// maxCookieFrame bounds a Cookie Response frame: a key and a cookie of at most 5 KiB.
const maxCookieFrame = 6 << 10

type cookieResponse struct {
	key     string
	payload []byte
	present bool
}

// meter is the login meter this player waits for: none for a player another instance moved
// here with a valid cookie (a drain sends everyone at once; they were metered where they came
// from), else the route's.
func (c *Config) meter(p *Player) *Meter {
	if p.Cookie == CookieValid {
		return nil
	}
	return c.Meter
}
