package config

import (
	"github.com/moonbridge/moonbridge/relay"
	"slices"
	"strings"
	"testing"
)

// addressSetup is the settings the warnings are about; the rest are the defaults.
type addressSetup struct {
	trusted, headers []string
	secret           Secret
	listeners        []relay.Listener // nil: the default listener
}

func (a addressSetup) config() Config {
	cfg := Default()
	cfg.TrustedProxies, cfg.ClientIPHeaders, cfg.ForwardSecret.Value = a.trusted, a.headers, a.secret
	if a.listeners != nil {
		cfg.Listeners = a.listeners
	}
	return cfg
}

// cloudflareRanges is a part of Cloudflare's published ranges, enough for the tests.
var cloudflareRanges = []string{"173.245.48.0/20", "103.21.244.0/22", "2400:cb00::/32", "2a06:98c0::/29"}

// Each unsafe or useless client address setup gets its warning, with its kind and key, and the
// reason says what to change.
func TestWarnings(t *testing.T) {
	wsListener := relay.Listener{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.WS}}
	proxied := wsListener
	proxied.Proxy = relay.ProxyRefuseUntrusted
	ignoring := wsListener
	ignoring.Proxy = relay.ProxyDiscardUntrusted
	minecraft := relay.Listener{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft}}
	for _, tc := range []struct {
		name   string
		setup  addressSetup
		kind   WarningKind
		key    string
		reason string // in the reason
	}{
		{"CDN header without secret", addressSetup{cloudflareRanges, []string{"CF-Connecting-IP"}, "", []relay.Listener{wsListener}},
			WarnForgeableHeader, "forward_secret.value", "any of its customers"},
		{"True-Client-IP from a private range", addressSetup{[]string{"10.0.0.0/8"}, []string{"True-Client-IP"}, "", []relay.Listener{wsListener}},
			WarnForgeableHeader, "forward_secret.value", "set forward_secret"},
		{"X-Forwarded-For from public ranges", addressSetup{cloudflareRanges, []string{"X-Forwarded-For"}, "", []relay.Listener{wsListener}},
			WarnForgeableHeader, "forward_secret.value", "X-Forwarded-For"},
		{"X-Real-IP from a public address", addressSetup{[]string{"203.0.113.9"}, []string{"X-Real-IP"}, "", []relay.Listener{wsListener}},
			WarnForgeableHeader, "forward_secret.value", "X-Real-IP"},
		{"header without trusted proxies", addressSetup{nil, []string{"CF-Connecting-IP"}, "s3cret", []relay.Listener{wsListener}},
			WarnHeaderIgnored, "client_ip_headers", "they are ignored"},
		{"several headers", addressSetup{[]string{"10.0.0.0/8"}, []string{"X-Real-IP", "X-Forwarded-For"}, "", []relay.Listener{wsListener}},
			WarnSeveralHeaders, "client_ip_headers", "names 2 headers"},
		{"trusted, no header, ws", addressSetup{[]string{"10.0.0.0/8"}, nil, "", []relay.Listener{wsListener}},
			WarnNoHeader, "client_ip_headers", "client_ip_headers is empty"},
		{"trust 0.0.0.0/0", addressSetup{[]string{"10.0.0.0/8", "0.0.0.0/0"}, []string{"X-Forwarded-For"}, "s3cret", []relay.Listener{wsListener}},
			WarnWideTrust, "trusted_proxies[1]", "covers every address"},
		{"trust ::/0", addressSetup{[]string{"::/0"}, []string{"CF-Connecting-IP"}, "s3cret", []relay.Listener{wsListener}},
			WarnWideTrust, "trusted_proxies[0]", "covers every address"},
		{"trust a /7", addressSetup{[]string{"2.0.0.0/7"}, []string{"CF-Connecting-IP"}, "s3cret", []relay.Listener{wsListener}},
			WarnWideTrust, "trusted_proxies[0]", "1/128 of all addresses"},
		{"PROXY header, no trusted proxies", addressSetup{nil, nil, "", []relay.Listener{minecraft, proxied}},
			WarnProxyFromAnyone, "listeners[1].proxy_header", "no PROXY header is believed"},
		{"PROXY header from everyone", addressSetup{[]string{"0.0.0.0/0", "::/0"}, nil, "", []relay.Listener{ignoring}},
			WarnProxyFromAnyone, "listeners[0].proxy_header", "anyone can send a PROXY header"},
	} {
		got := tc.setup.config().Warnings()
		i := slices.IndexFunc(got, func(w Warning) bool { return w.Kind == tc.kind })
		if i < 0 || got[i].Key != tc.key || !strings.Contains(got[i].Reason, tc.reason) {
			t.Errorf("%s: warnings %v, want a %s one for %s with %q", tc.name, got, tc.kind, tc.key, tc.reason)
		}
	}
}

// Setups that are as they should be get no warning: the defaults, Cloudflare with its header and
// the forward secret, nginx on the same network, a load balancer's PROXY headers, and trusted
// proxies on listeners whose players have no header to send (Minecraft only, PROXY headers).
func TestNoWarnings(t *testing.T) {
	wsListener := relay.Listener{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft, relay.WS, relay.WSS}}
	proxied := relay.Listener{Addr: "127.0.0.1:1", Protocols: []relay.Protocol{relay.WS}, Proxy: relay.ProxyRefuseUntrusted}
	minecraft := relay.Listener{Addr: "127.0.0.1:2", Protocols: []relay.Protocol{relay.Minecraft}}
	for _, tc := range []struct {
		name  string
		setup addressSetup
	}{
		{"defaults", addressSetup{nil, nil, "", nil}},
		{"Cloudflare with the secret", addressSetup{cloudflareRanges, []string{"CF-Connecting-IP"}, "s3cret", []relay.Listener{wsListener}}},
		{"nginx on the network", addressSetup{[]string{"127.0.0.1", "192.168.1.0/24", "fd00::/8"}, []string{"X-Forwarded-For"}, "", []relay.Listener{wsListener}}},
		{"load balancer's PROXY headers", addressSetup{[]string{"10.0.0.0/8"}, nil, "", []relay.Listener{proxied}}},
		{"trusted, Minecraft only", addressSetup{[]string{"10.0.0.0/8"}, nil, "", []relay.Listener{minecraft}}},
	} {
		if got := tc.setup.config().Warnings(); len(got) > 0 {
			t.Errorf("%s: warnings %v, want none", tc.name, got)
		}
	}
}
