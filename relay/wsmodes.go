package relay

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/moonbridge/moonbridge/ws"
)

// wsModeMetrics count the upgrades that used the modes moonbridge's client bridge can ask a
// listener for (Listener.EarlyData, Listener.RawStream; ws's doc draws the header).
type wsModeMetrics struct {
	earlyData *prometheus.CounterVec
	raw       prometheus.Counter
}

func newWSModeMetrics() wsModeMetrics {
	m := wsModeMetrics{
		earlyData: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "moonbridge_ws_early_data_total",
			Help: "WebSocket upgrades that offered early data (the bridge's first bytes in the request), by " +
				"result: used (taken: the session started from them), off (the listener's early_data is 0: " +
				"not taken, the bridge sent them after the upgrade), malformed (refused with 400), too_large " +
				"(over the listener's early_data: refused with 431).",
		}, []string{"result"}),
		raw: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "moonbridge_ws_raw_streams_total",
			Help: "WebSocket upgrades that switched to the raw stream (no framing after the 101: listener raw_stream).",
		}),
	}
	for _, r := range ws.EarlyDataResults {
		m.earlyData.WithLabelValues(string(r))
	}
	return m
}

func (m wsModeMetrics) describe(ch chan<- *prometheus.Desc) {
	m.earlyData.Describe(ch)
	m.raw.Describe(ch)
}

func (m wsModeMetrics) collect(ch chan<- prometheus.Metric) {
	m.earlyData.Collect(ch)
	m.raw.Collect(ch)
}

// modes is the listener's part of its upgrade settings: the bridge's modes and who hears of
// their early data.
func (ln *listener) modes(cfg ws.ServerConfig) ws.ServerConfig {
	cfg.EarlyData = int(min(ln.cfg.EarlyData, ws.MaxEarlyData))
	cfg.RawStream = ln.cfg.RawStream
	cfg.OnEarlyData = ln.onEarlyData
	return cfg
}

// onEarlyData counts what became of an offer of early data; a refused one is also the
// connection's refusal (reason early_data: logged, counted once), before the answer is written.
func (ln *listener) onEarlyData(r *http.Request, result ws.EarlyDataResult, err error) {
	ln.srv.wsModes.earlyData.WithLabelValues(string(result)).Inc()
	if err != nil {
		conn := r.Context().Value(connKey{}).(*httpConn)
		ln.report(conn.info, conn.info.clientAddr(), refusedEarlyData, err)
	}
}

// noteModes records the modes an upgraded connection agreed on, for the end line, and counts a
// raw stream.
func (ln *listener) noteModes(info *connInfo, c *ws.Conn) {
	info.earlyData, info.rawStream = c.EarlyData(), c.RawStream()
	if info.rawStream {
		ln.srv.wsModes.raw.Inc()
	}
}
