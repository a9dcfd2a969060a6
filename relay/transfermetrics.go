package relay

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/moonbridge/moonbridge/mc/auth"
)

// Outcomes of moonbridge_drain_moves_total.
const (
	transferSent       = "transferred" // a Transfer went out
	transferFailed     = "failed"      // one was asked for, and the stream had no room (lost, ended)
	transferNotMovable = "not_movable" // the session cannot be moved (an old client, a WebSocket without the bridge, ...)
	transferTold       = "told"        // a Disconnect with the restarting message went out at the drain's end
)

// cookieResults are the labels of moonbridge_transfer_cookies_total.
var cookieResults = map[auth.Cookie]string{auth.CookieValid: "valid", auth.CookieAbsent: "absent", auth.CookieRejected: "rejected",
	auth.CookieReplayed: "replayed"}

// transferMetrics count what drains did with the players they found and the transfer logins
// that came in.
type transferMetrics struct {
	moves   *prometheus.CounterVec
	logins  prometheus.Counter
	cookies *prometheus.CounterVec
}

func newTransferMetrics() transferMetrics {
	m := transferMetrics{
		moves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "moonbridge_drain_moves_total",
			Help: "What drains did with the players they found (shutdown.transfer_to): transferred (a Transfer " +
				"went out), failed (none could be put in the stream), not_movable (an older client, a " +
				"WebSocket player without moonbridge's bridge, a session still logging in), told (a " +
				"Disconnect saying why went out at the drain's end).",
		}, []string{"outcome"}),
		logins: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "moonbridge_transfer_logins_total",
			Help: "Handshakes with next state transfer (3): players another server sent here, taken as logins.",
		}),
		cookies: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "moonbridge_transfer_cookies_total",
			Help: "Transfer logins by their transfer cookie, asked before the route on an instance with " +
				"shutdown.transfer_secret_file, and on routes whose login the proxy runs: valid (signed " +
				"with the secret, for this player, in time: routed by its host, no login meter queue), absent, " +
				"rejected (forged, expired or another player's: ignored, the login goes on as any other), " +
				"replayed (valid, and believed here before: a cookie skips the meter once; the login goes on as any other).",
		}, []string{"result"}),
	}
	for _, o := range []string{transferSent, transferFailed, transferNotMovable, transferTold} {
		m.moves.WithLabelValues(o)
	}
	for _, r := range cookieResults {
		m.cookies.WithLabelValues(r)
	}
	return m
}

func (m transferMetrics) describe(ch chan<- *prometheus.Desc) {
	m.moves.Describe(ch)
	m.logins.Describe(ch)
	m.cookies.Describe(ch)
}

func (m transferMetrics) collect(ch chan<- prometheus.Metric) {
	m.moves.Collect(ch)
	m.logins.Collect(ch)
	m.cookies.Collect(ch)
}

// countTransferCookie counts what a transfer login's cookie check found; other logins are not
// counted.
func (s *Server) countTransferCookie(c auth.Cookie) {
	if r, ok := cookieResults[c]; ok {
		s.transfers.cookies.WithLabelValues(r).Inc()
	}
}
