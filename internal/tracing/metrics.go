package tracing

import "github.com/prometheus/client_golang/prometheus"

var spansDesc = prometheus.NewDesc("moonbridge_trace_spans_total",
	"Spans of joins by what became of them: exported, dropped (the export queue was full, or the process was stopping), failed (the collector failed or did not answer in time).",
	[]string{"result"}, nil)

// Describe and Collect make the Tracer a prometheus.Collector of its queue's counts.
func (t *Tracer) Describe(ch chan<- *prometheus.Desc) { ch <- spansDesc }

func (t *Tracer) Collect(ch chan<- prometheus.Metric) {
	st := t.Stats()
	for result, n := range map[string]uint64{"exported": st.Exported, "dropped": st.Dropped, "failed": st.Failed} {
		ch <- prometheus.MustNewConstMetric(spansDesc, prometheus.CounterValue, float64(n), result)
	}
}
