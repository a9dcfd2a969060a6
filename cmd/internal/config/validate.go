package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"

	"github.com/moonbridge/moonbridge/routes"
)

// InvalidError names the key whose value is wrong, its line and why.
type InvalidError struct {
	Key    string // dotted path, e.g. listeners[0].protocols
	Line   int    // in the file; 0 for a value the file does not set (a default, a flag)
	Reason string
}

func (e *InvalidError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Key, e.Reason)
	}
	return e.Key + ": " + e.Reason
}

func invalid(key, format string, args ...any) error {
	return &InvalidError{Key: key, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks what the types cannot: enumerations, addresses and ports, CIDRs, durations,
// required pairs, and that the files named exist and can be read. serve and check-config both
// run it.
func (c Config) Validate() error {
	var errs []error
	errs = append(errs, oneOf("log.level", c.Log.Level, "trace", "debug", "info", "warn", "error"))
	errs = append(errs, oneOf("log.format", c.Log.Format, "auto", "console", "json"))
	errs = append(errs, c.Admin.validate()...)
	errs = append(errs, c.TLS.validate()...)
	errs = append(errs, c.WebSocket.validate()...)
	if len(c.Listeners) == 0 {
		errs = append(errs, invalid("listeners", "at least one listener is needed"))
	}
	for i, l := range c.Listeners {
		errs = append(errs, validateListener(fmt.Sprintf("listeners[%d]", i), l, c.WebSocket.MaxHeaderSize)...)
	}
	errs = append(errs, validateRoutes(c.Routes)...)
	errs = append(errs, validateCIDRs("trusted_proxies", c.TrustedProxies)...)
	errs = append(errs, c.Access.validate(c.Routes)...)
	errs = append(errs, c.ForwardSecret.validate()...)
	errs = append(errs, validateLoginWebhook(c.LoginWebhook)...)
	errs = append(errs, validateLandingPage(c.LandingPage)...)
	errs = append(errs, c.Login.validate()...)
	errs = append(errs, validateHeaderNames("client_ip_headers", c.ClientIPHeaders)...)
	if c.CountryHeader != "" && !isHeaderName(c.CountryHeader) {
		errs = append(errs, invalid("country_header", "%q is not a header name", c.CountryHeader))
	}
	errs = append(errs, validateLimits(c.Limits)...)
	errs = append(errs, validateAttackMode(c.Defence.AttackMode)...)
	errs = append(errs, validateBlock(c.Defence.Block)...)
	errs = append(errs, validateBansFile(c.BansFile)...)
	errs = append(errs, c.Memory.validate()...)
	errs = append(errs, iconFile("fallback.favicon", c.Fallback.Favicon))
	errs = append(errs, c.Shutdown.validate()...)
	errs = append(errs, c.Upgrade.validate()...)
	errs = append(errs, c.Client.validate()...)
	errs = append(errs, c.Discovery.validate()...)
	errs = append(errs, c.Tracing.validate()...)
	errs = append(errs, c.Replicas.validate()...)
	errs = append(errs, validateMaintenance(c.Maintenance)...)
	return errors.Join(errs...)
}

func (t TLS) validate() []error {
	errs := []error{
		oneOf("tls.provider", t.Provider, "auto", "boringssl", "go"),
		oneOf("tls.min_version", t.MinVersion, "1.2", "1.3"),
		oneOf("tls.record_layer", t.RecordLayer, "boringssl-ssl", "aead"),
	}
	if (t.Cert == "") != (t.Key == "") {
		errs = append(errs, invalid("tls.cert", "tls.cert and tls.key go together; set both or neither"))
	}
	errs = append(errs, readableFile("tls.cert", t.Cert), readableFile("tls.key", t.Key))
	for i, extra := range t.Extra {
		key := fmt.Sprintf("tls.certificates[%d]", i)
		if extra.Cert == "" || extra.Key == "" {
			errs = append(errs, invalid(key, "needs both cert and key"))
		}
		errs = append(errs, readableFile(key+".cert", extra.Cert), readableFile(key+".key", extra.Key))
	}
	return errs
}

func (w WebSocket) validate() []error {
	var errs []error
	if !strings.HasPrefix(w.Path, "/") {
		errs = append(errs, invalid("websocket.path", "%q must start with /", w.Path))
	}
	if w.Keepalive < 0 {
		errs = append(errs, invalid("websocket.keepalive", "must be 0 (off) or positive"))
	}
	if w.DeadAfter < 1 {
		errs = append(errs, invalid("websocket.dead_after", "must be at least 1 keepalive interval"))
	}
	// A Minecraft frame can be 2^21-1 bytes plus its 3-byte length; a message limit below that
	// would not cut the stream (messages carry no boundaries) but would close sessions that a
	// client mod sends as one message.
	if w.MaxMessage < 1<<21+3 {
		errs = append(errs, invalid("websocket.max_message", "must be at least 2MiB+3 so a vanilla Minecraft frame fits"))
	}
	if w.HeaderTimeout <= 0 {
		errs = append(errs, invalid("websocket.header_timeout", "must be positive"))
	}
	if w.MaxHeaderSize < 1024 {
		errs = append(errs, invalid("websocket.max_header_size", "must be at least 1KiB"))
	}
	for i, p := range w.Subprotocols {
		if err := ws.CheckSubprotocol(p); err != nil {
			errs = append(errs, invalid(fmt.Sprintf("websocket.subprotocols[%d]", i), "%v", err))
		}
	}
	return errs
}

func validateLimits(l relay.Limits) []error {
	var errs []error
	positive := map[string]int64{
		"limits.max_connections": int64(l.MaxConnections), "limits.max_connections_per_ip": int64(l.MaxConnectionsPerIP),
		"limits.handshake_timeout": int64(l.HandshakeTimeout), "limits.dial_timeout": int64(l.DialTimeout),
		"limits.connection_burst_per_ip":      int64(l.ConnectionBurst),
		"limits.max_connections_per_network":  int64(l.MaxConnectionsPerNetwork),
		"limits.connection_burst_per_network": int64(l.ConnectionBurstPerNetwork),
		"limits.status_burst_per_network":     int64(l.StatusBurstPerNetwork),
		"limits.login_burst_per_network":      int64(l.LoginBurstPerNetwork),
	}
	for key, v := range positive {
		if v <= 0 {
			errs = append(errs, invalid(key, "must be positive"))
		}
	}
	rates := map[string]float64{
		"limits.connection_rate_per_ip": l.ConnectionRate, "limits.connection_rate_per_network": l.ConnectionRatePerNetwork,
		"limits.status_rate_per_network": l.StatusRatePerNetwork, "limits.login_rate_per_network": l.LoginRatePerNetwork,
	}
	for key, v := range rates {
		if v <= 0 {
			errs = append(errs, invalid(key, "must be positive (per second)"))
		}
	}
	if l.MaxPlayersPerAddress < 0 {
		errs = append(errs, invalid("limits.max_players_per_address", "must be 0 (none) or positive"))
	}
	if l.IPv6Prefix < 32 || l.IPv6Prefix > 128 {
		errs = append(errs, invalid("limits.ipv6_prefix", "must be between 32 and 128 (bits of an IPv6 address counted as one address)"))
	}
	if l.IPv4NetworkPrefix < 8 || l.IPv4NetworkPrefix > 32 {
		errs = append(errs, invalid("limits.ipv4_network_prefix", "must be between 8 and 32 (bits of an IPv4 address counted as one network)"))
	}
	if l.IPv6NetworkPrefix < 32 || l.IPv6NetworkPrefix > l.IPv6Prefix {
		errs = append(errs, invalid("limits.ipv6_network_prefix", "must be between 32 and ipv6_prefix (%d): a network holds whole addresses", l.IPv6Prefix))
	}
	if l.MaxHandshakeFrame < 776 || l.MaxHandshakeFrame > 1<<21 {
		errs = append(errs, invalid("limits.max_handshake_size", "must be between 776 (a vanilla handshake) and 2097152"))
	}
	return errs
}

func validateAttackMode(a relay.AttackMode) []error {
	return mustBePositive(map[string]int64{
		"defence.attack_mode.connections_per_second": int64(a.ConnectionsPerSecond),
		"defence.attack_mode.pings_per_second":       int64(a.PingsPerSecond),
		"defence.attack_mode.logins_per_second":      int64(a.LoginsPerSecond),
		"defence.attack_mode.cooldown":               int64(a.Cooldown),
	}, " (set enabled: false to turn the attack mode off)")
}

func validateBlock(b relay.Block) []error {
	var errs []error
	if b.After < 0 {
		errs = append(errs, invalid("defence.block.after", "must be 0 (no block list) or how many refusals block an address"))
	}
	return append(errs, mustBePositive(map[string]int64{
		"defence.block.window": int64(b.Window), "defence.block.for": int64(b.For),
		"defence.block.max_addresses": int64(b.MaxAddresses),
	}, "")...)
}

// mustBePositive is an error for each key whose value is not positive, in key order, the
// message ending with why.
func mustBePositive(values map[string]int64, why string) []error {
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(values)) {
		if values[key] <= 0 {
			errs = append(errs, invalid(key, "must be positive%s", why))
		}
	}
	return errs
}

// MinMemoryLimit is the smallest memory.limit in MiB: the process itself takes about 10.
const MinMemoryLimit = 32

func (m Memory) validate() []error {
	var errs []error
	if m.LimitMiB != 0 && m.LimitMiB < MinMemoryLimit {
		errs = append(errs, invalid("memory.limit", "must be 0 (the cgroup's limit, else half the machine's memory) or at least %d (MiB)", MinMemoryLimit))
	}
	if strings.TrimSpace(m.FullMessage) == "" {
		errs = append(errs, invalid("memory.full_message", "must not be empty: it is all a refused player sees"))
	}
	return errs
}

func validateListener(key string, l relay.Listener, maxHeader ByteSize) []error {
	errs := []error{listenAddr(key+".listen", l.Addr)}
	if len(l.Protocols) == 0 {
		errs = append(errs, invalid(key+".protocols", "name at least one of minecraft, ws, wss"))
	}
	servesWS := servesWebSocket(l)
	switch encoded := (l.EarlyData*4 + 2) / 3; {
	case l.EarlyData > ws.MaxEarlyData:
		errs = append(errs, invalid(key+".early_data", "must be 0 (off) or at most 4KiB"))
	case l.EarlyData > 0 && !servesWS:
		errs = append(errs, invalid(key+".early_data", "works on ws and wss only, which this listener does not serve; set it to 0"))
	case encoded > maxHeader:
		errs = append(errs, invalid(key+".early_data", "%d bytes are %d characters of the upgrade request's header, over websocket.max_header_size (%d)", l.EarlyData, encoded, maxHeader))
	}
	if l.RawStream && !servesWS {
		errs = append(errs, invalid(key+".raw_stream", "works on ws and wss only, which this listener does not serve; set it to false"))
	}
	return errs
}

func validateRoutes(routes []Route) []error {
	var errs []error
	if len(routes) == 0 {
		errs = append(errs, invalid("routes", "at least one route is needed"))
	}
	for i, r := range routes {
		key := fmt.Sprintf("routes[%d]", i)
		errs = append(append(errs, validateRoute(r, key)...), validateRouteFiles(r, key)...)
	}
	return append(errs, validateRouteBackends(routes)...)
}

// validate checks one route's own keys, without reading a file (validateFiles does); key names
// it ("routes[0]").
func validateRoute(r Route, key string) []error {
	var errs []error
	if len(r.Hosts) == 0 {
		errs = append(errs, invalid(key+".hosts", "name at least one host, or \"*\" for the default route"))
	}
	for j, h := range r.Hosts {
		if err := relay.CheckHostPattern(h); err != nil {
			errs = append(errs, invalid(fmt.Sprintf("%s.hosts[%d]", key, j), "%q: %v", h, err))
		}
	}
	if len(r.Backends) == 0 {
		errs = append(errs, invalid(key+".backends", "name at least one HOST:PORT"))
	}
	for j, b := range r.Backends {
		errs = append(errs, dialAddr(fmt.Sprintf("%s.backends[%d]", key, j), b))
	}
	if r.MaxConnections < 0 {
		errs = append(errs, invalid(key+".max_connections", "must be 0 (no limit of its own) or positive"))
	}
	if r.MaxPlayers < 0 {
		errs = append(errs, invalid(key+".max_players", "must be 0 (none) or positive"))
	}
	errs = append(errs, validateHealthCheck(r.HealthCheck, key+".health_check")...)
	errs = append(errs, validateRouteAccess(r.Access, key+".access")...)
	if _, err := relay.ParseCountries(r.Countries.Allow, r.Countries.Deny); err != nil {
		errs = append(errs, invalid(key+".countries", "%v", err))
	}
	errs = append(errs, validateRouteExtras(r, key)...)
	return append(errs, validateAuth(r, key)...)
}

// validateRouteBackends checks what metrics need: labels that differ between routes and no
// backend twice in one route.
func validateRouteBackends(routes []Route) []error {
	var errs []error
	labels := map[string]int{}
	for i, r := range routes {
		key := fmt.Sprintf("routes[%d]", i)
		if label := r.Label(); label != "" {
			if j, taken := labels[label]; taken {
				errs = append(errs, invalid(key+".name", "this route is labelled %q, as routes[%d] is; give one of them a name", label, j))
			}
			labels[label] = i
		}
		for j, b := range r.Backends {
			if k := slices.Index(r.Backends, b); k < j {
				errs = append(errs, invalid(fmt.Sprintf("%s.backends[%d]", key, j), "%q is listed twice", b))
			}
		}
	}
	return errs
}

// validateAuth checks a route's login settings: forwarding needs the proxy to run the login, and
// velocity its secret.
func validateAuth(r Route, key string) []error {
	errs := []error{oneOf(key+".auth", r.Auth, routes.AuthPassthrough, routes.AuthOnline, routes.AuthOffline)}
	if r.Forwarding != auth.ForwardNone && r.Auth == routes.AuthPassthrough {
		errs = append(errs, invalid(key+".forwarding", "needs auth online or offline: a passed-through login has nobody to forward"))
	}
	if r.Forwarding == auth.ForwardVelocity && r.VelocitySecretFile == "" {
		errs = append(errs, invalid(key+".velocity_secret_file", "velocity forwarding needs the secret the backend checks"))
	}
	return errs
}

// validateFiles checks that the files the route reads can be read. A route from elsewhere than
// the file gets this check only for files its source is allowed (CheckRouteFrom), so that its
// answer never tells whether some other path exists.
func validateRouteFiles(r Route, key string) []error {
	if r.Forwarding != auth.ForwardVelocity {
		return nil
	}
	return []error{readableFile(key+".velocity_secret_file", r.VelocitySecretFile)}
}

// validate checks the login settings online routes share.
func (l Login) validate() []error {
	errs := []error{oneOf("login.cipher", l.Cipher, CipherAuto, CipherBoringSSL, CipherGo)}
	if u, err := url.Parse(l.SessionServer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, invalid("login.session_server", "%q is not an http(s) URL", l.SessionServer))
	}
	if l.SessionTimeout <= 0 {
		errs = append(errs, invalid("login.session_timeout", "must be a positive duration such as 5s"))
	}
	errs = append(errs, l.validateMeter()...)
	return append(errs, readableFile("login.key_file", l.KeyFile))
}

// clientLoginTimeout is how long a vanilla client waits for a packet during the login.
const clientLoginTimeout = 30 * time.Second

// validateMeter checks login.meter: a player who waits max_wait and then session_timeout for
// the session server must hear back before the client gives up.
func (l Login) validateMeter() []error {
	m := l.Meter
	var errs []error
	if m.Rate <= 0 {
		errs = append(errs, invalid("login.meter.rate", "must be a positive number of requests a second such as 0.9"))
	}
	if m.Burst < 1 {
		errs = append(errs, invalid("login.meter.burst", "must be at least 1"))
	}
	if m.Queue < 0 {
		errs = append(errs, invalid("login.meter.queue", "must be 0 or more"))
	}
	if m.MaxWait < 0 || m.MaxWait+l.SessionTimeout >= clientLoginTimeout {
		errs = append(errs, invalid("login.meter.max_wait", "must be 0 or more, and with login.session_timeout (%s) under the client's %s login timeout",
			l.SessionTimeout, clientLoginTimeout))
	}
	return errs
}

func validateHealthCheck(h routes.HealthCheck, key string) []error {
	errs := []error{oneOf(key+".mode", h.Mode, routes.HealthTCP, routes.HealthStatus, routes.HealthOff)}
	if h.Mode == routes.HealthOff {
		return errs
	}
	if h.Interval <= 0 {
		errs = append(errs, invalid(key+".interval", "must be a positive duration such as 10s"))
	}
	if h.Timeout <= 0 {
		errs = append(errs, invalid(key+".timeout", "must be a positive duration such as 2s"))
	}
	if h.Rise < 1 {
		errs = append(errs, invalid(key+".rise", "must be at least 1 check"))
	}
	if h.Fall < 1 {
		errs = append(errs, invalid(key+".fall", "must be at least 1 check"))
	}
	return errs
}

func oneOf(key, value string, allowed ...string) error {
	if slices.Contains(allowed, value) {
		return nil
	}
	return invalid(key, "%q is not one of %s", value, strings.Join(allowed, ", "))
}

// listenAddr is an address to listen on: HOST:PORT or :PORT, port 0 picking a free one.
func listenAddr(key, addr string) error { return hostPort(key, addr, 0) }

// dialAddr is an address to connect to: HOST:PORT, port 1 to 65535.
func dialAddr(key, addr string) error { return hostPort(key, addr, 1) }

func hostPort(key, addr string, lowestPort int) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return invalid(key, "%q is not HOST:PORT (such as 0.0.0.0:25577 or [::1]:25577)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < lowestPort || n > 65535 {
		return invalid(key, "%q: the port must be a number from %d to 65535", addr, lowestPort)
	}
	return nil
}

// readableFile checks a file the config names, when it names one: serve reads it at start.
func readableFile(key, path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return invalid(key, "cannot read %s: %v", path, pathErrorReason(err))
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return invalid(key, "%s is a directory, not a file", path)
	}
	return nil
}

// pathErrorReason drops the path and operation an *os.PathError repeats.
func pathErrorReason(err error) error {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}

// validateCIDRs checks a list of CIDRs or single addresses.
func validateCIDRs(key string, cidrs []string) []error {
	var errs []error
	for i, cidr := range cidrs {
		if _, err := netip.ParsePrefix(cidr); err != nil {
			if _, err := netip.ParseAddr(cidr); err != nil {
				errs = append(errs, invalid(fmt.Sprintf("%s[%d]", key, i), "%q is not a CIDR (such as 173.245.48.0/20) or an address", cidr))
			}
		}
	}
	return errs
}

// validateHeaderNames checks HTTP header names: letters, digits and dashes, each once.
func validateHeaderNames(key string, names []string) []error {
	var errs []error
	seen := map[string]bool{}
	for i, name := range names {
		field := fmt.Sprintf("%s[%d]", key, i)
		switch {
		case name == "" || strings.TrimLeft(strings.ToLower(name), "abcdefghijklmnopqrstuvwxyz0123456789-") != "":
			errs = append(errs, invalid(field, "%q is not an HTTP header name (letters, digits, dashes)", name))
		case seen[strings.ToLower(name)]:
			errs = append(errs, invalid(field, "%q is listed twice", name))
		}
		seen[strings.ToLower(name)] = true
	}
	return errs
}

func (u Upgrade) validate() []error {
	var errs []error
	if u.Timeout <= 0 {
		errs = append(errs, invalid("upgrade.timeout", "must be a positive duration such as 30s"))
	}
	if u.Stay < 0 {
		errs = append(errs, invalid("upgrade.stay", "must be 0 (drain at once) or a positive duration such as 10m"))
	}
	return errs
}

func (s Shutdown) validate() []error {
	var errs []error
	if s.DrainTimeout < 0 {
		errs = append(errs, invalid("shutdown.drain_timeout", "must be 0 (close sessions at once) or a positive duration such as 30s"))
	}
	if s.TransferTo != "" {
		if _, _, err := relay.ParseTransferTarget(s.TransferTo); err != nil {
			errs = append(errs, invalid("shutdown.transfer_to", "%v", err))
		}
	}
	if s.TransferCookieTTL < 0 {
		errs = append(errs, invalid("shutdown.transfer_cookie_ttl", "must be 0 (the default, 1m) or a positive duration"))
	}
	if err := readableFile("shutdown.transfer_secret_file", s.TransferSecretFile); err != nil {
		errs = append(errs, err)
	} else if s.TransferSecretFile != "" {
		if _, err := ReadTransferSecret(s.TransferSecretFile); err != nil {
			errs = append(errs, invalid("shutdown.transfer_secret_file", "%v", err))
		}
	}
	return errs
}

// MinTransferSecretLength is the shortest transfer secret taken, in bytes: as the API token's.
const MinTransferSecretLength = MinAPITokenLength

// ReadTransferSecret reads the transfer cookies' secret from path: the file's content without
// its line ends, at least MinTransferSecretLength bytes.
func ReadTransferSecret(path string) ([]byte, error) {
	secret, err := readSecretFile(path, "secret", MinTransferSecretLength, func(s string) string { return strings.TrimRight(s, "\r\n") })
	return []byte(secret), err
}

// validateBansFile: the bans file's name says its format (the admin API writes it back in it).
func validateBansFile(path string) []error {
	if path == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return nil
	}
	return []error{invalid("bans_file", "%q: the name must end in .yaml, .yml or .json, which says its format", path)}
}
