package auth

import "github.com/prometheus/client_golang/prometheus"

// The meter's Prometheus series; Meter is a prometheus.Collector (the relay's Server collects
// it with its own).
var (
	meterSentDesc = prometheus.NewDesc("moonbridge_session_server_requests_total",
		"hasJoined requests the login meter let through to the session server.", nil, nil)
	meterWaitingDesc = prometheus.NewDesc("moonbridge_login_meter_waiting",
		"Players waiting now in the login meter's queue for their turn to ask the session server.", nil, nil)
	meterRefusedDesc = prometheus.NewDesc("moonbridge_login_meter_refused_total",
		"Online logins the login meter refused, by reason: queue_full, wait (the turn would pass "+
			"login.meter.max_wait), backoff (the session server's pause lasts longer than max_wait).",
		[]string{"reason"}, nil)
	meterBackoffsDesc = prometheus.NewDesc("moonbridge_session_server_backoffs_total",
		"Pauses of the login meter, by cause: too_many_requests (HTTP 429), server_error (5xx), "+
			"timeout (no answer within login.session_timeout).", []string{"cause"}, nil)
)

// meterCounts are the meter's counters; m.mu guards them.
type meterCounts struct {
	sent     float64
	refused  map[string]float64
	backoffs map[string]float64
}

func newMeterCounts() meterCounts {
	c := meterCounts{refused: map[string]float64{}, backoffs: map[string]float64{}}
	for _, r := range meterReasons { // every series exists from the start
		c.refused[r] = 0
	}
	for _, b := range backoffCauses {
		c.backoffs[b] = 0
	}
	return c
}

// Describe sends the meter's series descriptions.
func (m *Meter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{meterSentDesc, meterWaitingDesc, meterRefusedDesc, meterBackoffsDesc} {
		ch <- d
	}
}

// Collect sends the meter's series as of now.
func (m *Meter) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	out := []prometheus.Metric{
		prometheus.MustNewConstMetric(meterSentDesc, prometheus.CounterValue, m.counts.sent),
		prometheus.MustNewConstMetric(meterWaitingDesc, prometheus.GaugeValue, float64(len(m.queue))),
	}
	for r, v := range m.counts.refused {
		out = append(out, prometheus.MustNewConstMetric(meterRefusedDesc, prometheus.CounterValue, v, r))
	}
	for c, v := range m.counts.backoffs {
		out = append(out, prometheus.MustNewConstMetric(meterBackoffsDesc, prometheus.CounterValue, v, c))
	}
	m.mu.Unlock()
	for _, metric := range out {
		ch <- metric
	}
}
