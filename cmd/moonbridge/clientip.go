package main

import (
	"fmt"
	"slices"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// clientIPWarning is the one startup line for a client_ip_headers choice that looks wrong, or ""
// when it does not. The headers matter only on ws/wss listeners and only from trusted_proxies:
//   - none named while a ws/wss listener reads no PROXY header: every player there gets the
//     proxy's address (all share one per-address limit);
//   - several named: a proxy overwrites the one it sets and passes the others on as the player
//     sent them, so the player can put its choice in a header listed before the proxy's.
func clientIPWarning(cfg config.Config) string {
	if len(cfg.TrustedProxies) == 0 {
		return ""
	}
	switch headers := cfg.ClientIPHeaders; {
	case len(headers) > 1:
		return fmt.Sprintf("client_ip_headers names %d headers %v: a proxy overwrites only the one it sets, so players can choose their address with the others; name only your proxy's header", len(headers), headers)
	case len(headers) == 0 && slices.ContainsFunc(cfg.Listeners, wsWithoutProxyHeader):
		return "trusted_proxies is set but client_ip_headers is empty: ws/wss players will have the proxy's address; name the header your proxy sets (CF-Connecting-IP for Cloudflare, X-Forwarded-For for nginx)"
	}
	return ""
}

func wsWithoutProxyHeader(l relay.Listener) bool {
	servesWS := slices.Contains(l.Protocols, relay.WS) || slices.Contains(l.Protocols, relay.WSS)
	return servesWS && l.Proxy == relay.ProxyOff
}
