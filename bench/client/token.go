package client

import (
	"errors"
	"net/http"
)

// ErrTokenOverTCP: raw Minecraft has no place for an access token (only ws and wss carry one).
var ErrTokenOverTCP = errors.New("client: raw Minecraft (transport tcp) cannot carry an access token; use ws or wss")

// WithToken is d sending token as `Authorization: Bearer`, as `moonbridge client --token` does.
func WithToken(d Dialer, token string) (Dialer, error) {
	wd, ok := d.(webSocketDialer)
	if !ok {
		return nil, ErrTokenOverTCP
	}
	wd.cfg.Header = http.Header{"Authorization": {"Bearer " + token}}
	return wd, nil
}
