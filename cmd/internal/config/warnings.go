package config

import (
	"fmt"
	"github.com/moonbridge/moonbridge/relay"
	"net/netip"
	"slices"
	"strings"
)

// Warning is a setting that loads and runs but is unsafe or does nothing: what kind, the key it
// is about and what to do. serve logs them at start and on reload, check-config prints them.
type Warning struct {
	Kind   WarningKind
	Key    string // dotted path, e.g. trusted_proxies[0]
	Reason string
}

func (w Warning) String() string { return w.Key + ": " + w.Reason }

// WarningKind names what is wrong with the client address setup.
type WarningKind string

const (
	// WarnForgeableHeader: client_ip_headers believed without forward_secret from a proxy others
	// can send through (a CDN), so any of its customers can choose the address.
	WarnForgeableHeader WarningKind = "forgeable-header"
	// WarnHeaderIgnored: client_ip_headers without trusted_proxies, from whom alone they count.
	WarnHeaderIgnored WarningKind = "header-ignored"
	// WarnSeveralHeaders: a proxy overwrites only the header it sets; players fill the others.
	WarnSeveralHeaders WarningKind = "several-headers"
	// WarnNoHeader: trusted_proxies on ws/wss listeners without a header or PROXY header to
	// read, so every player there has the proxy's address.
	WarnNoHeader WarningKind = "no-header"
	// WarnWideTrust: a trusted_proxies range of a /0 to /7, every client or most of them.
	WarnWideTrust WarningKind = "wide-trust"
	// WarnProxyFromAnyone: a listener reads PROXY headers while trusted_proxies is empty (the
	// header is never believed) or covers every address (anyone can send one).
	WarnProxyFromAnyone WarningKind = "proxy-from-anyone"
	// WarnRemoteAPI: the routes API on an admin address beyond loopback (allow_remote), where
	// its token and changes cross the network in plain HTTP.
	WarnRemoteAPI WarningKind = "remote-routes-api"
	// WarnStateFileUnused: admin.routes_api.state_file with replicas on, where the API's routes
	// are kept in Redis and the file is not read.
	WarnStateFileUnused WarningKind = "state-file-unused"
	// WarnMaintenanceRoute: a maintenance entry for a label no route of the file has (a typo,
	// or a route the routes API or discovery serves).
	WarnMaintenanceRoute WarningKind = "maintenance-route"
	// WarnCountryUnknown: a route's countries.allow without XX while no country is believed (no
	// country_header or no trusted_proxies), so it refuses every client.
	WarnCountryUnknown WarningKind = "country-unknown"
	// WarnTransferNoSecret: shutdown.transfer_to without transfer_secret_file: moved players
	// carry no cookie naming the host they joined at, so the instance they land on routes
	// them by transfer_to's host, which may be another route's.
	WarnTransferNoSecret WarningKind = "transfer-no-secret"
)

// widestTrust is the shortest prefix a trusted_proxies range may have without a warning: a
// CDN's ranges are /12 and narrower for IPv4, /29 and narrower for IPv6.
const widestTrust = 8

// cdnHeaders are the headers a CDN sets for its every customer; behind one, only
// forward_secret tells requests from the owner's CDN configuration from anyone else's.
var cdnHeaders = []string{"cf-connecting-ip", "true-client-ip", "fastly-client-ip", "cf-connecting-ipv6"}

// ownNetworks are the ranges of a proxy on the owner's machine or network: headers from there
// are the owner's proxy's, which no one else can send through.
var ownNetworks = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("fe80::/10"),
}

// Warnings lists the settings of c that are valid but unsafe or without effect: client address
// setups, a routes API beyond loopback, a state file the replicas' Redis replaces, a drain's
// transfer without its secret. c is a validated config.
func (c Config) Warnings() []Warning {
	var out []Warning
	out = append(out, c.headerWarnings()...)
	out = append(out, c.trustWarnings()...)
	out = append(out, c.proxyHeaderWarnings()...)
	out = append(out, c.maintenanceWarnings()...)
	out = append(out, c.countryWarnings()...)
	out = append(out, c.Shutdown.warnings()...)
	if api := c.Admin.RoutesAPI; api.Enabled && !isLoopback(c.Admin.Listen) {
		out = append(out, Warning{WarnRemoteAPI, "admin.routes_api.allow_remote", fmt.Sprintf("the routes API is served on %s, beyond loopback: its token and every change cross the network in plain HTTP; keep that network private, or put a TLS proxy in front", c.Admin.Listen)})
	}
	if api := c.Admin.RoutesAPI; api.Enabled && api.StateFile != "" && c.Replicas.Enabled {
		out = append(out, Warning{WarnStateFileUnused, "admin.routes_api.state_file", "with replicas on, the routes API's routes are kept in Redis and shared by the replicas: the state file is neither read nor written; remove it"})
	}
	return out
}

// headerWarnings are about client_ip_headers.
func (c Config) headerWarnings() []Warning {
	headers := c.ClientIPHeaders
	switch {
	case len(headers) == 0 && len(c.TrustedProxies) > 0 && slices.ContainsFunc(c.Listeners, wsWithoutProxyHeader):
		return []Warning{{WarnNoHeader, "client_ip_headers", "trusted_proxies is set but client_ip_headers is empty: ws/wss players will have the proxy's address; name the header your proxy sets (CF-Connecting-IP for Cloudflare, X-Forwarded-For for nginx)"}}
	case len(headers) == 0:
		return nil
	case len(c.TrustedProxies) == 0:
		return []Warning{{WarnHeaderIgnored, "client_ip_headers", "trusted_proxies is empty, and the headers are believed only from trusted proxies: they are ignored; list your proxy's or CDN's addresses in trusted_proxies"}}
	}
	var out []Warning
	if len(headers) > 1 {
		out = append(out, Warning{WarnSeveralHeaders, "client_ip_headers", fmt.Sprintf("names %d headers %v: a proxy overwrites only the one it sets, so players can choose their address with the others; name only your proxy's header", len(headers), headers)})
	}
	if c.ForwardSecret.Value == "" && (slices.ContainsFunc(headers, isCDNHeader) || slices.ContainsFunc(c.TrustedProxies, sharedNetwork)) {
		out = append(out, Warning{WarnForgeableHeader, "forward_secret.value", fmt.Sprintf("is empty while client_ip_headers %v are believed from a CDN: any of its customers can send a request through it with the header set to any address; set forward_secret to a header your CDN adds (a Cloudflare Transform Rule)", headers)})
	}
	return out
}

// trustWarnings are about trusted_proxies ranges that take in every client or most of them.
func (c Config) trustWarnings() []Warning {
	var out []Warning
	for i, cidr := range c.TrustedProxies {
		if p, err := netip.ParsePrefix(cidr); err == nil && p.Bits() < widestTrust {
			out = append(out, Warning{WarnWideTrust, fmt.Sprintf("trusted_proxies[%d]", i), fmt.Sprintf("%s covers %s: a client there can send a PROXY header or client_ip_headers and choose its address; list only your proxy's or CDN's ranges", cidr, coverage(p))})
		}
	}
	return out
}

func coverage(p netip.Prefix) string {
	if p.Bits() == 0 {
		return "every address"
	}
	return fmt.Sprintf("1/%d of all addresses", 1<<p.Bits())
}

// proxyHeaderWarnings are about listeners that read PROXY headers from no one, or from anyone.
func (c Config) proxyHeaderWarnings() []Warning {
	everyone := slices.ContainsFunc(c.TrustedProxies, func(cidr string) bool {
		p, err := netip.ParsePrefix(cidr)
		return err == nil && p.Bits() == 0
	})
	var out []Warning
	for i, l := range c.Listeners {
		key := fmt.Sprintf("listeners[%d].proxy_header", i)
		switch {
		case !readsProxyHeader(l):
		case len(c.TrustedProxies) == 0:
			out = append(out, Warning{WarnProxyFromAnyone, key, fmt.Sprintf("is %s but trusted_proxies is empty: no PROXY header is believed, so every player has the load balancer's address; list its addresses in trusted_proxies", l.Proxy)})
		case everyone:
			out = append(out, Warning{WarnProxyFromAnyone, key, fmt.Sprintf("is %s and trusted_proxies covers every address: anyone can send a PROXY header and choose its address; list only your load balancer's addresses", l.Proxy)})
		}
	}
	return out
}

func readsProxyHeader(l relay.Listener) bool { return l.Proxy != relay.ProxyOff }

func wsWithoutProxyHeader(l relay.Listener) bool { return servesWebSocket(l) && !readsProxyHeader(l) }

func servesWebSocket(l relay.Listener) bool {
	return slices.Contains(l.Protocols, relay.WS) || slices.Contains(l.Protocols, relay.WSS)
}

func isCDNHeader(name string) bool { return slices.Contains(cdnHeaders, strings.ToLower(name)) }

// sharedNetwork: cidr (a range or an address) reaches outside ownNetworks, where a CDN's edges
// are.
func sharedNetwork(cidr string) bool {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		addr, err := netip.ParseAddr(cidr)
		if err != nil {
			return false
		}
		p = netip.PrefixFrom(addr, addr.BitLen())
	}
	return !slices.ContainsFunc(ownNetworks, func(own netip.Prefix) bool {
		return own.Bits() <= p.Bits() && own.Contains(p.Addr())
	})
}

// countryWarnings are about routes whose countries.allow lets no one in: without country_header
// or trusted_proxies every client's country is unknown, XX.
func (c Config) countryWarnings() []Warning {
	if c.CountryHeader != "" && len(c.TrustedProxies) > 0 {
		return nil
	}
	var out []Warning
	for i, r := range c.Routes {
		allow := r.Countries.Allow
		if len(allow) > 0 && !slices.ContainsFunc(allow, func(code string) bool { return strings.EqualFold(code, relay.CountryUnknown) }) {
			out = append(out, Warning{WarnCountryUnknown, fmt.Sprintf("routes[%d].countries.allow", i), "no country is believed without country_header and trusted_proxies, so every client is XX and this list refuses them all; set both, or add XX"})
		}
	}
	return out
}

// warnings are about moving players on a drain without the secret that keeps their route.
func (s Shutdown) warnings() []Warning {
	if s.TransferTo == "" || s.TransferSecretFile != "" {
		return nil
	}
	host, _, _ := relay.ParseTransferTarget(s.TransferTo)
	return []Warning{{WarnTransferNoSecret, "shutdown.transfer_secret_file", fmt.Sprintf("is empty while transfer_to "+
		"is set: moved players carry no cookie, so the instance they land on routes them by %q, not by the host they "+
		"joined at; a player of another route lands on %q's route. Set transfer_secret_file, the same file on every instance", host, host)}}
}
