package pool

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The reasons of moonbridge_backend_dial_failures_total: a small fixed set, every one present
// from start at 0 for every backend.
const (
	dialTimeout     = "timeout"     // no answer within limits.dial_timeout (a blackholed or overloaded host)
	dialRefused     = "refused"     // nothing listens on the port (the server is down)
	dialUnreachable = "unreachable" // no route to the host or network, or the name does not resolve
	dialPreamble    = "preamble"    // connected, but sending the PROXY header and handshake failed
	dialOther       = "other"
)

var dialReasons = []string{dialTimeout, dialRefused, dialUnreachable, dialPreamble, dialOther}

// dialFailureReason names why a dial failed, in one of dialReasons.
func dialFailureReason(err error) string {
	var ne net.Error
	var dns *net.DNSError
	switch {
	case errors.As(err, new(*PreambleError)):
		return dialPreamble
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return dialTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return dialRefused
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), errors.As(err, &dns):
		return dialUnreachable
	}
	return dialOther
}

var backendUpDesc = prometheus.NewDesc("moonbridge_backend_up",
	"1 while a backend passes its route's health check, 0 while it is skipped; only for routes whose "+
		"health_check mode is not off. Backends start up.", []string{"route", "backend"}, nil)

// wakeResults label moonbridge_wakes_total.
var wakeResults = []string{"started", "ready", "timeout", "failed", "stopped"}

// Metrics are the series of a server's pools: dials per backend and wakes per route. Unlike the
// session series they are counted when they happen: one dial per session costs far more than an
// observation. A server makes one and registers it through its own Describe and Collect.
type Metrics struct {
	failures *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
	wakes    *prometheus.CounterVec
}

// NewMetrics makes the series, with none yet.
func NewMetrics() *Metrics {
	return &Metrics{
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "moonbridge_backend_dial_failures_total",
			Help: "Player connections a backend did not take, by reason: timeout, refused, unreachable, preamble " +
				"(connected, but the PROXY header and handshake could not be sent), other.",
		}, []string{"route", "backend", "reason"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "moonbridge_backend_dial_seconds",
			Help: "Time to connect to a backend for a player, failed attempts included (a timeout shows as dial_timeout).",
			// From a loopback connect (well under 1 ms) to a dial_timeout of several seconds.
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "backend"}),
		wakes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "moonbridge_wakes_total",
			Help: "Sleeping servers woken and stopped, by route and result: started (the start command or webhook ran), " +
				"ready (the server answered after a start), timeout (it did not within ready_timeout), failed (the " +
				"command or webhook failed), stopped (idle, the stop command or webhook ran)."}, []string{"route", "result"}),
	}
}

// Follow makes the dial series of next's backends exist (at 0 for new ones) and drops those of
// prev's backends that next does not have, so a reload leaves no series of a backend that is
// gone. prev is nil at the start.
func (m *Metrics) Follow(prev, next []*Pool) {
	kept := map[[2]string]bool{}
	for _, p := range next {
		for _, b := range p.members {
			kept[[2]string{p.cfg.Route, b.Addr}] = true
			m.seconds.WithLabelValues(p.cfg.Route, b.Addr)
			for _, reason := range dialReasons {
				m.failures.WithLabelValues(p.cfg.Route, b.Addr, reason)
			}
		}
	}
	for _, p := range prev {
		for _, b := range p.members {
			if !kept[[2]string{p.cfg.Route, b.Addr}] {
				labels := prometheus.Labels{"route": p.cfg.Route, "backend": b.Addr}
				m.seconds.Delete(labels)
				m.failures.DeletePartialMatch(labels)
			}
		}
	}
}

// followWakes makes the wake series of route exist, at 0.
func (m *Metrics) followWakes(route string) {
	for _, result := range wakeResults {
		m.wakes.WithLabelValues(route, result)
	}
}

func (m *Metrics) observeDial(route, backend string, took time.Duration) {
	m.seconds.WithLabelValues(route, backend).Observe(took.Seconds())
}

func (m *Metrics) countFailure(route, backend, reason string) {
	m.failures.WithLabelValues(route, backend, reason).Inc()
}

func (m *Metrics) countWake(route, result string) { m.wakes.WithLabelValues(route, result).Inc() }

// Describe sends the descriptors of the pools' series, moonbridge_backend_up's (AppendUp) too.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- backendUpDesc
	m.failures.Describe(ch)
	m.seconds.Describe(ch)
	m.wakes.Describe(ch)
}

// Collect sends the counted series; AppendUp makes moonbridge_backend_up's.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.failures.Collect(ch)
	m.seconds.Collect(ch)
	m.wakes.Collect(ch)
}

// AppendUp adds the moonbridge_backend_up series of p's backends to out, when p checks them.
func (p *Pool) AppendUp(out []prometheus.Metric) []prometheus.Metric {
	if !p.cfg.HealthCheck.enabled() {
		return out
	}
	for _, b := range p.members {
		up := 0.0
		if b.up.Load() {
			up = 1
		}
		out = append(out, prometheus.MustNewConstMetric(backendUpDesc, prometheus.GaugeValue, up, p.cfg.Route, b.Addr))
	}
	return out
}
