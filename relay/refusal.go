package relay

import (
	"bufio"
	"errors"
	"net/netip"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/mc"
)

// The refusal reasons of moonbridge_connections_refused_total: why a connection ended before it
// became a session (or, for route_connections, before it reached a backend). Every one of them
// is a series from the start, at 0.
const (
	refusedTotal            = "connections"             // the total limit
	refusedPerAddr          = "connections_per_address" // the per-address limit
	refusedRate             = "connection_rate"         // the per-address new-connection rate
	refusedPerNetwork       = "connections_per_network" // the per-network limit
	refusedNetworkRate      = "connection_rate_network" // the per-network new-connection rate
	refusedStatusRate       = "status_rate_network"     // the per-network status ping rate
	refusedLoginRate        = "login_rate_network"      // the per-network login rate
	refusedPlayersPerAddr   = "players_per_address"     // a login over max_players_per_address
	refusedRoutePlayers     = "route_players"           // a login over a route's max_players
	refusedRoute            = "route_connections"       // a route's own limit
	refusedProxy            = "proxy_header"            // a bad or untrusted PROXY header
	refusedSniffTimeout     = "sniff_timeout"           // nothing said within the sniff timeout
	refusedHandshakeTimeout = "handshake_timeout"       // TLS, upgrade and hello not done in time
	refusedTLS              = "tls_handshake"           // the TLS handshake failed
	refusedHTTP400          = "http_400"                // a malformed HTTP request
	refusedHTTP404          = "http_404"                // a request off the WebSocket path
	refusedHTTP426          = "http_426"                // a plain HTTP request on the path
	refusedHTTP431          = "http_431"                // an HTTP request header over the limit
	refusedHTTPOther        = "http_other"              // any other HTTP error answer
	refusedEarlyData        = "early_data"              // early data malformed or over the listener's limit
	refusedMemory           = "memory"                  // a login while memory is near memory.limit
	refusedMemoryShed       = "memory_shed"             // a handshake in progress the memory guard shed
	refusedGarbage          = "garbage"                 // first bytes neither Minecraft nor what else the listener serves
	refusedMalformed        = "malformed_handshake"     // a Minecraft handshake that does not parse
	refusedBlocked          = "blocked"                 // an address on the block list (blocklist.go)
	refusedMaintenance      = "maintenance"             // a login not on the allowlist of a route under maintenance
	refusedCountry          = "country"                 // a client whose country its route does not let in (countries.go)
)

var refusalReasons = []string{
	refusedTotal, refusedPerAddr, refusedRate, refusedPerNetwork, refusedNetworkRate, refusedStatusRate,
	refusedLoginRate, refusedPlayersPerAddr, refusedRoutePlayers, refusedRoute, refusedProxy, refusedSniffTimeout,
	refusedHandshakeTimeout, refusedTLS, refusedHTTP400, refusedHTTP404, refusedHTTP426,
	refusedHTTP431, refusedHTTPOther, refusedEarlyData, refusedMemory, refusedMemoryShed, refusedGarbage, refusedMalformed, refusedBlocked,
	refusedMaintenance, refusedCountry,
}

// refusalLinesPerSecond bounds the info lines per reason: a flood of refusals (a scanner, an
// attack) is counted in full by the metric, and the log says how many lines it left out.
const refusalLinesPerSecond = 10

// A cheap refusal (garbage, a malformed hello, a blocked address) is what floods are made of
// and says nothing an owner acts on line by line: one line per reason per cheapLinePeriod.
const cheapLinePeriod = 10 * time.Second

// countRefusal counts a refusal whose log line is written elsewhere (a session's end line).
func (s *Server) countRefusal(reason string) {
	s.mu.Lock()
	s.tally.refused[reason]++
	s.mu.Unlock()
}

// refusal counts a refusal and logs it at info, sampled per reason.
func (s *Server) refusal(log zerolog.Logger, reason string, client netip.AddrPort, err error) {
	// Counted after the line is out, so whoever sees the count (a test) finds the line too.
	defer s.countRefusal(reason)
	s.logSampled(log, reason, reason, client, err, "connection refused")
}

// cheapRefusal counts a cheap refusal and logs it at info, sampled more sparsely than others.
func (s *Server) cheapRefusal(log zerolog.Logger, reason string, client netip.AddrPort, err error) {
	defer s.countRefusal(reason)
	s.logSampledBy(&s.cheap, log, reason, reason, client, err, "connection refused")
}

// logSampled writes a refusal's info line unless the sampler leaves it out (sampled by key).
func (s *Server) logSampled(log zerolog.Logger, key, reason string, client netip.AddrPort, err error, msg string) {
	s.logSampledBy(&s.sampler, log, key, reason, client, err, msg)
}

func (s *Server) logSampledBy(by *sampler, log zerolog.Logger, key, reason string, client netip.AddrPort, err error, msg string) {
	suppressed, ok := by.allow(key, time.Now())
	if !ok {
		return
	}
	ev := log.Info().Str("reason", reason).Str("client", client.String()).Err(err)
	if suppressed > 0 {
		ev.Int("suppressed", suppressed)
	}
	ev.Msg(msg)
}

// sampler lets through at most lines lines per reason in each period (when zero:
// refusalLinesPerSecond in each second).
type sampler struct {
	lines   int
	period  time.Duration
	mu      sync.Mutex
	windows map[string]*sampleWindow
}

type sampleWindow struct {
	start      time.Time
	lines      int
	suppressed int // left out since the last line that was let through
}

// allow reports whether a line for reason may be written now, and how many were left out
// before it.
func (s *sampler) allow(reason string, now time.Time) (suppressed int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.windows == nil {
		s.windows = map[string]*sampleWindow{}
	}
	w := s.windows[reason]
	if w == nil {
		w = &sampleWindow{start: now}
		s.windows[reason] = w
	}
	lines, period := s.lines, s.period
	if lines == 0 {
		lines, period = refusalLinesPerSecond, time.Second
	}
	if now.Sub(w.start) >= period {
		w.start, w.lines = now, 0
	}
	if w.lines >= lines {
		w.suppressed++
		return 0, false
	}
	w.lines++
	suppressed, w.suppressed = w.suppressed, 0
	return suppressed, true
}

// refuseMalformed makes a hello that broke the protocol a cheap refusal: counted as garbage
// (its first bytes cannot begin a hello; on a listener that serves only Minecraft the sniff
// leaves them to the session) or malformed_handshake, struck for the block list, and without
// the session's end line. In moonbridge_sessions_total it is still a session that ended with
// bad_handshake, as is a hello cut short (the client left), which stays a session's end line.
func (s *session) refuseMalformed(r *bufio.Reader, err error) {
	if !errors.As(err, new(*mc.ProtocolError)) {
		return
	}
	reason := refusedMalformed
	if b, _ := r.Peek(r.Buffered()); mc.CheckHelloStart(b) == mc.ErrNotHello {
		reason = refusedGarbage
	}
	s.quiet = true
	s.srv.cheapRefusal(s.log, reason, s.info.client, err)
	s.srv.strike(s.log, s.info.client.Addr())
}
