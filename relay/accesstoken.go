package relay

import (
	"net/http"
	"strings"

	"github.com/gorilla/websocket"
)

// Where a WebSocket client's token is read, in this order:
//
//   - "Authorization: Bearer TOKEN", what `moonbridge client --token` sends;
//   - a Sec-WebSocket-Protocol value TokenSubprotocolPrefix+TOKEN, for browsers and mods that
//     cannot set headers. Such a client offers StreamSubprotocol beside it, and the server
//     selects that one (RFC 6455 §4.2.2: the answer names one of the values offered): the token
//     is never echoed back, where a CDN might log it;
//   - the query parameter TokenQueryParameter, only when the relay allows it (Config
//     .TokenInQuery), since URLs end up in logs.
const (
	TokenSubprotocolPrefix = "moonbridge-token."
	StreamSubprotocol      = "moonbridge"
	TokenQueryParameter    = "access_token"
)

// TokenFrom returns the request's token and whether it carries one.
func TokenFrom(r *http.Request, query bool) (string, bool) {
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token), true
	}
	for _, p := range websocket.Subprotocols(r) {
		if token, ok := strings.CutPrefix(p, TokenSubprotocolPrefix); ok {
			return token, true
		}
	}
	if query {
		if token := r.URL.Query().Get(TokenQueryParameter); token != "" {
			return token, true
		}
	}
	return "", false
}
