package suite

import (
	"io"

	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/report"
	"github.com/moonbridge/moonbridge/bench/stats"
)

// Summary is, per path, per metric, the range over that path's phases.
type Summary map[string]map[string]stats.Range

// Summarize gathers each metric of each path over the phases.
func Summarize(phases []PhaseReport) Summary {
	values := map[string]map[string][]float64{}
	for _, p := range phases {
		if values[p.Path] == nil {
			values[p.Path] = map[string][]float64{}
		}
		for name, v := range p.Metrics {
			values[p.Path][name] = append(values[p.Path][name], v)
		}
	}
	s := Summary{}
	for path, metrics := range values {
		s[path] = map[string]stats.Range{}
		for name, vs := range metrics {
			s[path][name] = stats.Summarize(vs)
		}
	}
	return s
}

// Markdown writes one row per path with every metric as median [min-max].
func (s Summary) Markdown(w io.Writer) {
	var rows [][]string
	for _, path := range []string{PathDirect, PathProxy} {
		if metrics, ok := s[path]; ok {
			rows = append(rows, MetricCells(path, metrics))
		}
	}
	report.Table(w, append([]string{"path"}, phase.MetricOrder...), rows)
}

// MetricCells is a table row: a label, then each metric's range in report order.
func MetricCells(label string, metrics map[string]stats.Range) []string {
	row := []string{label}
	for _, name := range phase.MetricOrder {
		row = append(row, report.Range(metrics[name]))
	}
	return row
}
