package config

import (
	"cmp"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"time"
)

// Admin is the HTTP endpoint for metrics, health, the block list, transfers, the dashboard and
// the routes API (cmd/moonbridge/admin.go); empty Listen turns it off. Pprof adds Go's profiles under
// /debug/pprof/ (off by default: a profile can be asked for at any time and costs CPU while it
// runs). RoutesAPI adds the routes API (routesapi.go, served by cmd/internal/routebook), off by
// default.
type Admin struct {
	Listen string `yaml:"listen"`
	Pprof  bool   `yaml:"pprof"`
	// TokenFile holds the bearer token every state-changing request (any method but GET and
	// HEAD, on any path) must carry, read again at each request; also the routes API's token.
	// Needed when Listen is not loopback (TokenPath).
	TokenFile string `yaml:"token_file"`
	// AllowedHosts are the names a request's Host header may give beside loopback's and the
	// address the connection arrived on; any other Host is refused, against DNS rebinding.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// ReadTimeout bounds the reading of a request, its headers included; WriteTimeout the
	// writing of its answer (a CPU profile or trace gets its seconds on top); IdleTimeout a
	// kept-alive connection between requests.
	ReadTimeout  time.Duration `yaml:"read_timeout"`
	WriteTimeout time.Duration `yaml:"write_timeout"`
	IdleTimeout  time.Duration `yaml:"idle_timeout"`
	// MaxConnections caps the admin port's open connections; the next ones wait in the
	// kernel's accept queue, holding none of the process's descriptors.
	MaxConnections int       `yaml:"max_connections"`
	RoutesAPI      RoutesAPI `yaml:"routes_api"`
}

func defaultAdmin() Admin {
	return Admin{
		AllowedHosts:   []string{},
		ReadTimeout:    10 * time.Second,
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    60 * time.Second,
		MaxConnections: 64,
		RoutesAPI:      RoutesAPI{RouteTrust: defaultRouteTrust()},
	}
}

// WithBounds is a with its zero bounds (timeouts, connection cap) set to the defaults: Load
// refuses zero, but an Admin built in code may leave them out, and a zero would mean no bound.
func (a Admin) WithBounds() Admin {
	d := defaultAdmin()
	a.ReadTimeout = cmp.Or(a.ReadTimeout, d.ReadTimeout)
	a.WriteTimeout = cmp.Or(a.WriteTimeout, d.WriteTimeout)
	a.IdleTimeout = cmp.Or(a.IdleTimeout, d.IdleTimeout)
	a.MaxConnections = cmp.Or(a.MaxConnections, d.MaxConnections)
	return a
}

// TokenPath is the file of the admin endpoint's one token: token_file, or else, with the routes
// API on, admin.routes_api.token_file, the key configs written before token_file use; "" for
// none.
func (a Admin) TokenPath() string {
	if a.TokenFile == "" && a.RoutesAPI.Enabled {
		return a.RoutesAPI.TokenFile
	}
	return a.TokenFile
}

// tokenKey is the key TokenPath comes from, for errors.
func (a Admin) tokenKey() string {
	if a.TokenFile == "" && a.RoutesAPI.Enabled {
		return "admin.routes_api.token_file"
	}
	return "admin.token_file"
}

// validate checks the admin section: its address, its token (required beyond loopback, where
// anyone who reaches the port could otherwise move players or empty the block list), its host
// names, timeouts and connection cap, and the routes API.
func (a Admin) validate() []error {
	var errs []error
	if a.Listen != "" {
		errs = append(errs, listenAddr("admin.listen", a.Listen))
	}
	errs = append(errs, a.validateToken()...)
	for i, host := range a.AllowedHosts {
		if !isHostName(host) {
			errs = append(errs, invalid(fmt.Sprintf("admin.allowed_hosts[%d]", i), "%q is no host name or IP address (no port, no wildcard)", host))
		}
	}
	errs = append(errs, mustBePositive(map[string]int64{
		"admin.read_timeout": int64(a.ReadTimeout), "admin.write_timeout": int64(a.WriteTimeout),
		"admin.idle_timeout": int64(a.IdleTimeout), "admin.max_connections": int64(a.MaxConnections),
	}, "")...)
	return append(errs, a.validateRoutesAPI()...)
}

// validateToken: one token file, readable and long enough, and one at all beyond loopback.
func (a Admin) validateToken() []error {
	if a.TokenFile != "" && a.RoutesAPI.TokenFile != "" && a.RoutesAPI.TokenFile != a.TokenFile {
		return []error{invalid("admin.routes_api.token_file", "names %s, but admin.token_file names %s: the admin endpoint has one token; "+
			"remove admin.routes_api.token_file (its older name)", a.RoutesAPI.TokenFile, a.TokenFile)}
	}
	path := a.TokenPath()
	switch {
	case path != "":
		if _, err := ReadAPIToken(path); err != nil {
			return []error{invalid(a.tokenKey(), "%v", err)}
		}
	case a.Listen != "" && !isLoopback(a.Listen):
		return []error{invalid("admin.token_file", "admin.listen %q is not a loopback address, and without a token anyone who reaches it "+
			"could move players (POST /transfer) or empty the block list (POST /blocklist/clear): set admin.token_file to a file "+
			"of %d bytes or more (head -c 32 /dev/urandom | base64), or listen on 127.0.0.1", a.Listen, MinAPITokenLength)}
	}
	return nil
}

// hostLabels is a DNS name of letters, digits, hyphens and underscores between dots.
var hostLabels = regexp.MustCompile(`^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$`)

// isHostName says whether s is a name or an IP address as a Host header gives it, without port.
func isHostName(s string) bool {
	if _, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return true
	}
	return len(s) <= 253 && hostLabels.MatchString(strings.ToLower(s))
}
