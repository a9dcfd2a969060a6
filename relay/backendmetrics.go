package relay

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

// backendMetrics are the per-backend dial series. Unlike the session series they are counted
// when they happen: one dial per session costs far more than an observation.
type backendMetrics struct {
	failures *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
}

func newBackendMetrics() backendMetrics {
	return backendMetrics{
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
	}
}

// follow makes the series of next's backends exist (at 0 for new ones) and drops those of
// prev's backends that next does not have, so a reload leaves no series of a backend that is
// gone. prev is nil at the start.
func (m backendMetrics) follow(prev, next *Router) {
	kept := map[[2]string]bool{}
	for _, b := range next.allBackends() {
		kept[[2]string{b.route, b.Addr}] = true
		m.seconds.WithLabelValues(b.route, b.Addr)
		for _, reason := range dialReasons {
			m.failures.WithLabelValues(b.route, b.Addr, reason)
		}
	}
	if prev == nil {
		return
	}
	for _, b := range prev.allBackends() {
		if !kept[[2]string{b.route, b.Addr}] {
			labels := prometheus.Labels{"route": b.route, "backend": b.Addr}
			m.seconds.Delete(labels)
			m.failures.DeletePartialMatch(labels)
		}
	}
}

func (m backendMetrics) observeDial(b *backendState, took time.Duration) {
	m.seconds.WithLabelValues(b.route, b.Addr).Observe(took.Seconds())
}

func (m backendMetrics) countFailure(b *backendState, reason string) {
	m.failures.WithLabelValues(b.route, b.Addr, reason).Inc()
}

func (m backendMetrics) describe(ch chan<- *prometheus.Desc) {
	ch <- backendUpDesc
	m.failures.Describe(ch)
	m.seconds.Describe(ch)
}

func (m backendMetrics) collect(ch chan<- prometheus.Metric) {
	m.failures.Collect(ch)
	m.seconds.Collect(ch)
}

// backendUp adds the moonbridge_backend_up series of every checked backend to out.
func (r *Router) backendUp(out []prometheus.Metric) []prometheus.Metric {
	for _, route := range r.routes {
		if !route.HealthCheck.enabled() {
			continue
		}
		for _, b := range route.backends {
			up := 0.0
			if b.up.Load() {
				up = 1
			}
			out = append(out, prometheus.MustNewConstMetric(backendUpDesc, prometheus.GaugeValue, up, b.route, b.Addr))
		}
	}
	return out
}
