package relay

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// Access is who may use a route: a token (read from WebSocket clients only, since a vanilla
// client cannot carry one) and the client's address, the real one after a trusted PROXY or
// forwarded header. Deny wins over Allow; an empty Allow allows every address.
type Access struct {
	Tokens access.Mode // "" is access.TokensOff
	Allow  clientaddr.Nets
	Deny   clientaddr.Nets
}

func (a Access) admitsAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
	return !a.Deny.Contains(addr) && (len(a.Allow) == 0 || a.Allow.Contains(addr))
}

func (a Access) wantsToken() bool { return a.Tokens != access.TokensOff }

// needsVerifier refuses routes that want tokens when there is nothing to verify them with.
func (r *Router) needsVerifier(v *access.Verifier) error {
	for i := range r.routes {
		if r.routes[i].Access.wantsToken() && v == nil {
			return fmt.Errorf("route %s: access.tokens %s needs verification keys", r.routes[i].Label(), r.routes[i].Access.Tokens)
		}
	}
	return nil
}

// admitAccess decides during the WebSocket upgrade, before any backend is dialed, what can be
// decided before the Minecraft hello names the host: the routes the request path can reach all
// refuse the address (403), a token is sent and does not verify (401), or none is sent and all
// those routes require one (401). A verified token's claims go with the connection; the route
// the hello picks is checked again (routeAccess). The client learns nothing of why.
func (ln *listener) admitAccess(info *connInfo, r *http.Request) (int, string) {
	conf := ln.srv.settings()
	routes := conf.router.forPath(r.URL.Path)
	if len(routes) == 0 {
		return 0, "" // no route: the session's fallback answers
	}
	client := info.client.Addr()
	if all(routes, func(rt *Route) bool { return !rt.Access.admitsAddr(client) }) {
		ln.deny(info, &access.Error{Reason: access.ReasonAddress, Detail: "not allowed on path " + r.URL.Path})
		return http.StatusForbidden, "forbidden"
	}
	if all(routes, func(rt *Route) bool { return !rt.Access.wantsToken() }) {
		return 0, ""
	}
	token, found := TokenFrom(r, conf.TokenInQuery)
	if !found {
		if all(routes, func(rt *Route) bool { return rt.Access.Tokens == access.TokensRequired }) {
			ln.deny(info, &access.Error{Reason: access.ReasonMissing})
			return http.StatusUnauthorized, "unauthorized"
		}
		return 0, ""
	}
	claims, err := conf.Tokens.Verify(token)
	if err != nil {
		ln.deny(info, accessError(err))
		return http.StatusUnauthorized, "unauthorized"
	}
	info.claims = &claims
	return 0, ""
}

// accessError is a verifier's refusal as an *access.Error, which every one of them is.
func accessError(err error) *access.Error {
	var ae *access.Error
	if errors.As(err, &ae) {
		return ae
	}
	return &access.Error{Reason: access.ReasonMalformed, Detail: err.Error()}
}

func all(routes []*Route, f func(*Route) bool) bool {
	for _, r := range routes {
		if !f(r) {
			return false
		}
	}
	return true
}

// deny reports an access refusal once per connection, as report does for other refusals.
func (ln *listener) deny(info *connInfo, err *access.Error) {
	if info.reported.CompareAndSwap(false, true) {
		info.refuseTrace("access_"+string(err.Reason), err)
		ln.srv.accessDenied(ln.log, info.clientAddr(), err)
	}
}

// accessDenied counts a refusal in moonbridge_access_denied_total and logs it at info, sampled
// per reason like every refusal.
func (s *Server) accessDenied(log zerolog.Logger, client netip.AddrPort, err *access.Error) {
	defer s.countDenied(err.Reason)
	s.logSampled(log, "access_"+string(err.Reason), string(err.Reason), client, err, "access denied")
}

// countDenied counts an access refusal whose log line is written elsewhere (a session's end line).
func (s *Server) countDenied(reason access.Reason) {
	s.mu.Lock()
	s.tally.denied[reason]++
	s.mu.Unlock()
}

// routeAccess is why the session may not use route, reached for host, or nil: the address,
// then the token the upgrade verified (none for raw TCP) against the route's mode and the
// token's scopes.
func (s *session) routeAccess(route *Route, host string) *access.Error {
	a, claims := route.Access, s.info.claims
	switch {
	case !a.admitsAddr(s.info.client.Addr()):
		return &access.Error{Reason: access.ReasonAddress, Detail: "not allowed on route " + route.Label()}
	case !a.wantsToken():
		return nil
	case claims == nil && a.Tokens == access.TokensRequired:
		return &access.Error{Reason: access.ReasonMissing, Detail: "route " + route.Label() + " requires a token"}
	case claims != nil && !claims.Opens(route.Label(), host):
		return &access.Error{Reason: access.ReasonScope, Detail: "token of " + claims.Subject + " does not open route " + route.Label()}
	}
	return nil
}

// accessAnswer tells a refused player no more than that: a server-list entry or a login
// disconnect saying access is denied.
func accessAnswer(fallback mc.Answer) mc.Answer {
	const text = "Access denied."
	answer := mc.Answer{Status: fallback.Status, Disconnect: text}
	answer.Status.MOTD = "§c" + text
	return answer
}
