package main

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// adminGuard stands in front of every path of the admin endpoint, the routes API's included.
// In order, it refuses:
//
//   - 421, a Host header that names no address of this endpoint: neither a loopback name
//     (localhost, 127.0.0.0/8, [::1]), nor the IP address the connection arrived on, nor a name
//     of admin.allowed_hosts. A web page whose name was rebound to the admin address (DNS rebinding)
//     sends its own name, so its requests go no further. A request without Host (HTTP/1.0)
//     comes from no browser and passes.
//   - 403, a state-changing request a browser marks cross-origin (Sec-Fetch-Site, Origin).
//   - 401, a state-changing request (any method but GET and HEAD), or a read of what names
//     players and their addresses (privateReads: the sessions and the bans), without the
//     bearer token of the admin token file, when there is one; 503 while that file cannot be
//     read.
type adminGuard struct {
	tokenFile string          // config.Admin.TokenPath(); "" for none
	hosts     map[string]bool // admin.allowed_hosts, lower-case, without a final dot
	log       zerolog.Logger
}

func newAdminGuard(cfg config.Admin, log zerolog.Logger) adminGuard {
	hosts := map[string]bool{}
	for _, h := range cfg.AllowedHosts {
		hosts[canonicalHost(h)] = true
	}
	return adminGuard{tokenFile: cfg.TokenPath(), hosts: hosts, log: log}
}

// wrap puts the guard in front of next.
func (g adminGuard) wrap(next http.Handler) http.Handler {
	guarded := http.NewCrossOriginProtection().Handler(g.requireToken(next))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r) {
			g.log.Debug().Str("host", r.Host).Str("from", r.RemoteAddr).Msg("admin endpoint: a request for another host refused")
			http.Error(w, "this admin endpoint does not serve host "+r.Host+" (admin.allowed_hosts lists the names it answers to)", http.StatusMisdirectedRequest)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// hostAllowed says whether r's Host names this endpoint (see adminGuard).
func (g adminGuard) hostAllowed(r *http.Request) bool {
	if r.Host == "" {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = canonicalHost(host)
	if host == "localhost" || g.hosts[host] {
		return true
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return addr.IsLoopback() || local != nil && addrOf(local) == addr.Unmap()
}

// canonicalHost is a host as the guard compares it: lower-case, without brackets or a final dot.
func canonicalHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

// addrOf is the IP address of a TCP address, unmapped; the zero Addr for another kind.
func addrOf(a net.Addr) netip.Addr {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.Addr{}
	}
	addr, _ := netip.AddrFromSlice(tcp.IP)
	return addr.Unmap()
}

// privateReads are the paths (and the paths under them) whose reads need the token too: they
// name players and their addresses.
var privateReads = []string{"/sessions", "/bans"}

// needsToken says whether r needs the token (when there is one): a change, or a private read.
func needsToken(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return true
	}
	return slices.ContainsFunc(privateReads, func(p string) bool {
		return r.URL.Path == p || strings.HasPrefix(r.URL.Path, p+"/")
	})
}

// requireToken lets a request that needsToken through only with the token (when there is one).
func (g adminGuard) requireToken(next http.Handler) http.Handler {
	if g.tokenFile == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !needsToken(r) {
			next.ServeHTTP(w, r)
			return
		}
		want, err := config.ReadAPIToken(g.tokenFile)
		if err != nil {
			g.log.Error().Err(err).Msg("admin endpoint: the token file cannot be read; every state-changing request is refused")
			http.Error(w, "the admin token file cannot be read (the log says why)", http.StatusServiceUnavailable)
			return
		}
		if !config.CarriesToken(r, want) {
			g.log.Warn().Str("method", r.Method).Str("path", r.URL.Path).Str("from", r.RemoteAddr).
				Msg("admin endpoint: a request without the token refused")
			w.Header().Set("WWW-Authenticate", `Bearer realm="moonbridge admin"`)
			http.Error(w, "this needs the token of admin.token_file: Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
