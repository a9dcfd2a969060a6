package relay

import (
	"strings"
)

// startupLine is the message of a listener's startup line: where it listens, what it serves
// and where players go, e.g. "Listening on 0.0.0.0:443 for Minecraft, ws and wss (TLS:
// BoringSSL): play.example.net -> 10.0.0.5:25565; * -> 127.0.0.1:25565". tlsProvider is ""
// without wss.
func startupLine(addr string, protocols []Protocol, tlsProvider string, routes []string) string {
	var b strings.Builder
	b.WriteString("Listening on " + addr + " for " + protocolList(protocols))
	if tlsProvider != "" {
		b.WriteString(" (TLS: " + tlsName(tlsProvider) + ")")
	}
	if len(routes) > 0 {
		b.WriteString(": " + strings.Join(routes, "; "))
	}
	return b.String()
}

// protocolList is "Minecraft", "Minecraft and ws", "Minecraft, ws and wss".
func protocolList(protocols []Protocol) string {
	names := make([]string, len(protocols))
	for i, p := range protocols {
		names[i] = string(p)
		if p == Minecraft {
			names[i] = "Minecraft"
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// tlsName is how the startup line names a TLS provider.
func tlsName(provider string) string {
	switch provider {
	case "boringssl":
		return "BoringSSL"
	case "go":
		return "Go crypto/tls"
	}
	return provider
}

// routesFor describes the routes a listener's players can reach, as "hosts [on paths] ->
// backends": path-limited routes only over ws or wss.
func (r *Router) routesFor(protocols []Protocol) []string {
	webSocket := false
	for _, p := range protocols {
		webSocket = webSocket || p == WS || p == WSS
	}
	var out []string
	for i := range r.routes {
		route := &r.routes[i]
		if len(route.Paths) > 0 && !webSocket {
			continue
		}
		out = append(out, route.describe())
	}
	return out
}

// describe is "play.example.net,mc.example.net on /creative -> 10.0.0.5:25565, 10.0.0.6:25565".
func (r *Route) describe() string {
	match := strings.Join(r.Hosts, ",")
	if len(r.Paths) > 0 {
		match += " on " + strings.Join(r.Paths, ",")
	}
	backends := make([]string, len(r.Backends))
	for i, b := range r.Backends {
		backends[i] = b.Addr
	}
	return match + " -> " + strings.Join(backends, ", ")
}
