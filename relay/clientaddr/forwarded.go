package clientaddr

import (
	"net/http"
	"net/netip"
	"strings"
)

// Behind a CDN the WebSocket's TCP peer is the CDN's edge, and the client's
// address travels in HTTP headers, which anyone can also send. So the
// headers count only when the peer is in the trusted Nets, and only the
// ones the caller names (the relay's Config.ClientIPHeaders), in that order, the first usable one
// winning. None is named by default: a proxy overwrites the header it sets
// and passes the others on as the player sent them, so only the owner, who
// knows the proxy, can name a header that cannot be forged. Typical names:
//
//   - CF-Connecting-IP   set by Cloudflare
//   - True-Client-IP     set by Akamai, and Cloudflare Enterprise
//   - X-Real-IP          set by nginx with proxy_set_header X-Real-IP
//   - X-Forwarded-For    each proxy appends the address it saw, so the
//     entries on the right were written by our trusted hops and those on
//     the left by whoever came first, possibly the client itself. Walking
//     right to left over all the headers and their comma lists, trusted
//     entries are skipped and the first untrusted one is the client. An
//     invalid entry ends the walk with no answer, since everything left of
//     it is unverifiable.
//
// Any name but X-Forwarded-For is read as a single address: it counts only
// when it appears once and parses; a repeated or invalid one is ignored and
// the next in order is tried. If nothing usable remains, the peer is the
// client.

const xffHeader = "X-Forwarded-For"

// FromHeaders returns the client address for a connection from peer
// carrying header h, reading the headers names in order, and the name of the
// header it came from ("" when it is the peer itself).
func FromHeaders(peer netip.Addr, trusted Nets, names []string, h http.Header) (client netip.Addr, from string) {
	if !trusted.Contains(peer) {
		return peer, ""
	}
	for _, name := range names {
		if strings.EqualFold(name, xffHeader) {
			if a, ok := rightmostUntrusted(h.Values(xffHeader), trusted); ok {
				return a, xffHeader
			}
		} else if v := h.Values(name); len(v) == 1 {
			if a, ok := parseForwardedAddr(v[0]); ok {
				return a, name
			}
		}
	}
	return peer, ""
}

// rightmostUntrusted walks X-Forwarded-For entries from the right.
func rightmostUntrusted(headers []string, trusted Nets) (netip.Addr, bool) {
	for i := len(headers) - 1; i >= 0; i-- {
		entries := strings.Split(headers[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			a, ok := parseForwardedAddr(entries[j])
			if !ok {
				return netip.Addr{}, false
			}
			if !trusted.Contains(a) {
				return a, true
			}
		}
	}
	return netip.Addr{}, false
}

// parseForwardedAddr accepts an address, optionally with a port as some
// proxies add ("203.0.113.7:4711", "[2001:db8::1]:4711"), and no zone.
func parseForwardedAddr(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, perr := netip.ParseAddrPort(s)
		a, err = ap.Addr(), perr
	}
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}
