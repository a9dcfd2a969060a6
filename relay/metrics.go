package relay

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// The relay's Prometheus series. Server is a prometheus.Collector: everything is read at scrape
// time from counts the relay keeps anyway (the pumps' byte counters, the session set), so a
// relayed byte costs nothing more and a scrape costs one walk over the live sessions.
var (
	activeDesc = prometheus.NewDesc("moonbridge_sessions_active",
		"Player sessions running now (after the protocol was sniffed), by protocol.", []string{"protocol"}, nil)
	endedDesc = prometheus.NewDesc("moonbridge_sessions_total",
		"Player sessions that have ended, by protocol and outcome: closed (normally), bad_handshake, "+
			"no_route, refused (a route's limit), access_denied, backend_unreachable, server_full (a login refused near the "+
			"memory limit), login_refused (a login the proxy ran), banned (a ban: docs/bans.md), kicked (the admin API), "+
			"client_error, backend_error, shutdown, transfer_ignored (sent a Transfer, did not leave within 10 s), "+
			"panic (a bug of the proxy's: moonbridge_session_panics_total).",
		[]string{"protocol", "outcome"}, nil)
	bytesDesc = prometheus.NewDesc("moonbridge_relayed_bytes_total",
		"Bytes relayed: up (player to backend) and down (backend to player), live sessions included.",
		[]string{"protocol", "direction"}, nil)
	refusedDesc = prometheus.NewDesc("moonbridge_connections_refused_total",
		"Connections refused before a session, by reason: connections, connections_per_address, "+
			"connection_rate, connections_per_network, connection_rate_network, status_rate_network, "+
			"login_rate_network, players_per_address, route_players, route_connections (limits), proxy_header, sniff_timeout, handshake_timeout, "+
			"tls_handshake, http_400, http_404, http_426, http_431, http_other, early_data (a malformed or oversized "+
			"offer of early data), memory (a login while memory "+
			"is near memory.limit), garbage (first bytes that are not Minecraft, nor TLS or HTTP where served), "+
			"malformed_handshake, blocked (an address on the block list).",
		[]string{"reason"}, nil)
	deniedDesc = prometheus.NewDesc("moonbridge_access_denied_total",
		"Clients access control refused, by reason: missing, oversized, malformed, version, algorithm, "+
			"unknown_key, key_algorithm, signature, expired, not_yet_valid, audience (the token), scope "+
			"(a valid token that does not open the route), address (the allow and deny lists).",
		[]string{"reason"}, nil)
	// proxyLoginsDesc is not moonbridge_logins_total, which counts the logins a backend took, by
	// route (loginevents.go).
	proxyLoginsDesc = prometheus.NewDesc("moonbridge_proxy_logins_total",
		"Logins the proxy ran itself (a route's auth online or offline), by outcome: ok, bad_packet, "+
			"unknown_version, bad_verify_token, bad_secret, not_authenticated, session_server_unreachable, "+
			"name_mismatch, forwarding_failed (the backend did not take the forwarding), expired_chat_key, "+
			"login_meter_refused (the login meter had no turn in time: docs/defence.md).",
		[]string{"outcome"}, nil)
	buffersDesc = prometheus.NewDesc("moonbridge_relay_buffers",
		"Relay buffers (about 64 KiB each) held now. Goroutine data path: one per direction that is "+
			"moving data, and one per WebSocket or TLS client direction for as long as its session runs. "+
			"Event loops: one per direction whose destination has not taken all of a read yet.", nil, nil)
	loopSessionsDesc = prometheus.NewDesc("moonbridge_loop_sessions",
		"Established sessions on each event loop now (relay.loops, relay.placement, docs/tuning.md): "+
			"packed, the first loops carry them and the others stay empty until those are full.", []string{"loop"}, nil)
	loopBusyDesc = prometheus.NewDesc("moonbridge_loop_busy_ratio",
		"Share of the last quarter second each event loop spent working rather than waiting "+
			"(relay.placement pack; a loop at 0.9 or more is full and sessions move off it).", []string{"loop"}, nil)
	loopMovesDesc = prometheus.NewDesc("moonbridge_loop_moves_total",
		"Established sessions moved from one event loop to another (relay.placement pack).", nil, nil)
	attackModeDesc = prometheus.NewDesc("moonbridge_attack_mode",
		"1 while the attack mode is on (new connections, pings or logins over their thresholds), else 0.", nil, nil)
	attackActivationsDesc = prometheus.NewDesc("moonbridge_attack_mode_activations_total",
		"Times the attack mode started.", nil, nil)
)

// tally holds the counts of what has ended; the Server's mu guards it.
type tally struct {
	ended   map[[2]string]float64 // protocol, outcome
	bytes   map[[2]string]float64 // protocol, direction
	refused map[string]float64
	denied  map[access.Reason]float64
	logins  map[string]float64 // logins the proxy ran, by auth outcome
}

func newTally() tally {
	refused := make(map[string]float64, len(refusalReasons))
	for _, r := range refusalReasons {
		refused[r] = 0 // every reason is a series from the start
	}
	denied := make(map[access.Reason]float64, len(access.Reasons))
	for _, r := range access.Reasons {
		denied[r] = 0
	}
	logins := make(map[string]float64, len(auth.Outcomes))
	for _, o := range auth.Outcomes {
		logins[o] = 0
	}
	return tally{ended: map[[2]string]float64{}, bytes: map[[2]string]float64{}, refused: refused, denied: denied, logins: logins}
}

// outcome names how a session ended, in few enough words for a label.
func outcome(reason error) string {
	var side *pipe.SideError
	switch {
	case reason == nil:
		return "closed"
	case isPanic(reason):
		return "panic"
	case errors.Is(reason, errShutdown):
		return "shutdown"
	case errors.As(reason, new(*mc.HelloError)):
		return "bad_handshake"
	case errors.As(reason, new(*NoRouteError)):
		return "no_route"
	case errors.As(reason, new(*pool.DialError)):
		return "backend_unreachable"
	case errors.As(reason, new(*LimitError)):
		return "refused"
	case errors.As(reason, new(*access.Error)):
		return "access_denied"
	case errors.Is(reason, ErrServerFull):
		return "server_full"
	case errors.As(reason, new(*auth.LoginError)):
		return "login_refused"
	case errors.As(reason, new(*BannedError)):
		return "banned"
	case errors.As(reason, new(*KickedError)):
		return "kicked"
	case errors.Is(reason, errTransferred):
		return outcomeTransferIgnored
	case errors.As(reason, new(*BackendLoginError)):
		return "backend_error"
	case errors.As(reason, &side):
		return side.Side + "_error"
	}
	return "error"
}

// Describe sends the relay's descriptors.
func (s *Server) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{activeDesc, endedDesc, bytesDesc, refusedDesc, deniedDesc, proxyLoginsDesc, buffersDesc, loopSessionsDesc, loopBusyDesc, loopMovesDesc, memoryRefusingDesc, attackModeDesc, attackActivationsDesc, blockedDesc, panicsDesc, maintenanceDesc} {
		ch <- d
	}
	s.backends.Describe(ch)
	s.events.describe(ch)
	s.meter.Describe(ch)
	s.transfers.describe(ch)
	s.wsModes.describe(ch)
}

// Collect sends the relay's series as of now. They are made under the server's lock and sent
// after it, so a slow scrape never holds up sessions starting or ending.
func (s *Server) Collect(ch chan<- prometheus.Metric) {
	for _, m := range s.snapshot() {
		ch <- m
	}
	s.backends.Collect(ch)
	s.events.collect(ch)
	s.meter.Collect(ch)
	s.transfers.collect(ch)
	s.wsModes.collect(ch)
	s.collectMaintenance(ch)
}

func (s *Server) snapshot() []prometheus.Metric {
	s.mu.Lock()
	defer s.mu.Unlock()
	active := map[string]float64{}
	for _, ln := range s.listeners { // a protocol that is served shows 0, not nothing
		for _, p := range ln.cfg.Protocols {
			active[string(p)] += 0
		}
	}
	bytes := make(map[[2]string]float64, len(s.tally.bytes))
	for k, v := range s.tally.bytes {
		bytes[k] = v
	}
	for sess := range s.sessions {
		active[sess.protocol]++
		up, down := sess.relayed()
		bytes[[2]string{sess.protocol, "up"}] += float64(up)
		bytes[[2]string{sess.protocol, "down"}] += float64(down)
	}
	var out []prometheus.Metric
	add := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		out = append(out, prometheus.MustNewConstMetric(d, t, v, labels...))
	}
	for p, n := range active {
		add(activeDesc, prometheus.GaugeValue, n, p)
	}
	for k, n := range s.tally.ended {
		add(endedDesc, prometheus.CounterValue, n, k[0], k[1])
	}
	for k, n := range bytes {
		add(bytesDesc, prometheus.CounterValue, n, k[0], k[1])
	}
	for r, n := range s.tally.refused {
		add(refusedDesc, prometheus.CounterValue, n, r)
	}
	for r, n := range s.tally.denied {
		add(deniedDesc, prometheus.CounterValue, n, string(r))
	}
	for o, n := range s.tally.logins {
		add(proxyLoginsDesc, prometheus.CounterValue, n, o)
	}
	loops := s.loopStats()
	add(buffersDesc, prometheus.GaugeValue, float64(batchesOut()+loops.Held))
	for i, n := range loops.PerLoop {
		add(loopSessionsDesc, prometheus.GaugeValue, float64(n), strconv.Itoa(i))
	}
	for i, b := range loops.Busy {
		add(loopBusyDesc, prometheus.GaugeValue, b, strconv.Itoa(i))
	}
	if loops.Busy != nil {
		add(loopMovesDesc, prometheus.CounterValue, float64(loops.Moves))
	}
	add(panicsDesc, prometheus.CounterValue, float64(s.panics.Load()), "goroutine")
	add(panicsDesc, prometheus.CounterValue, float64(loops.Panics), "loop")
	add(memoryRefusingDesc, prometheus.GaugeValue, s.mem.refusingValue())
	add(attackModeDesc, prometheus.GaugeValue, s.attack.gauge())
	add(attackActivationsDesc, prometheus.CounterValue, float64(s.attack.activations.Load()))
	add(blockedDesc, prometheus.GaugeValue, float64(s.blocks.size(time.Now())))
	for _, p := range s.settings().router.pools() {
		out = p.AppendUp(out)
	}
	return out
}

// countLogin counts a login the proxy ran, by outcome.
func (s *Server) countLogin(outcome string) {
	s.mu.Lock()
	s.tally.logins[outcome]++
	s.mu.Unlock()
}

// count moves an ended session into the totals; the caller holds s.mu.
func (s *Server) count(sess *session) {
	up, down := sess.relayed()
	s.tally.ended[[2]string{sess.protocol, outcome(sess.endReason())}]++
	s.tally.bytes[[2]string{sess.protocol, "up"}] += float64(up)
	s.tally.bytes[[2]string{sess.protocol, "down"}] += float64(down)
}

// meters are a session's byte counts: read from its pumps' counters or its event loop
// session, once the session relays.
type meters struct {
	mu   sync.Mutex
	read func() (up, down int64) // nil before the session relays
}

func (m *meters) start(read func() (up, down int64)) {
	m.mu.Lock()
	m.read = read
	m.mu.Unlock()
}

// started says whether the session relays (a backend took it).
func (m *meters) started() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.read != nil
}

// relayed is what the session has moved so far, each way.
func (m *meters) relayed() (up, down int64) {
	m.mu.Lock()
	read := m.read
	m.mu.Unlock()
	if read == nil {
		return 0, 0
	}
	return read()
}
