package clientaddr

import (
	"fmt"
	"net/netip"
	"strings"
)

// Nets is a list of networks: the trusted proxies, whose word about a client's address the
// proxy believes (load balancers sending PROXY headers, CDNs setting forwarded headers), and a
// route's allow and deny lists. An empty list holds no address, so it trusts nobody.
type Nets []netip.Prefix

// ParseNets parses CIDRs such as "173.245.48.0/20" or "2400:cb00::/32"; a bare address means
// that one host. A prefix with host bits set, such as "10.0.0.5/8", is refused rather than
// widened, since it is usually a typo that would trust more than meant. what names the list in
// errors ("trusted network", "allow entry").
func ParseNets(what string, cidrs []string) (Nets, error) {
	nets := make(Nets, 0, len(cidrs))
	for _, s := range cidrs {
		p, err := parseNet(what, strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		nets = append(nets, p)
	}
	return nets, nil
}

func parseNet(what, s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("clientaddr: %s %q: not an address or CIDR", what, s)
		}
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("clientaddr: %s %q: %v", what, s, err)
	}
	if p != p.Masked() {
		return netip.Prefix{}, fmt.Errorf("clientaddr: %s %q has host bits set; did you mean %s?", what, s, p.Masked())
	}
	return p, nil
}

// Contains reports whether a is in one of the networks. An IPv4 address
// seen through a dual-stack socket as ::ffff:a.b.c.d matches IPv4 networks.
func (t Nets) Contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
