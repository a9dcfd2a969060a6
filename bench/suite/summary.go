package suite

import (
	"io"
	"slices"

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

// Markdown writes one row per path with every metric measured as median [min-max].
func (s Summary) Markdown(w io.Writer) {
	var paths []string
	var metrics []map[string]stats.Range
	for _, path := range []string{PathDirect, PathProxy} {
		if m, ok := s[path]; ok {
			paths, metrics = append(paths, path), append(metrics, m)
		}
	}
	columns := Columns(metrics...)
	rows := make([][]string, len(paths))
	for i, path := range paths {
		rows[i] = MetricCells(path, columns, metrics[i])
	}
	report.Table(w, append([]string{"path"}, columns...), rows)
}

// Columns are the metrics of MetricOrder that at least one of the rows measured: a frames run
// and an upgrades run each show their own.
func Columns(rows ...map[string]stats.Range) []string { return ColumnsOf(MetricOrder, rows...) }

// ColumnsOf are the metrics of order that at least one of the rows measured.
func ColumnsOf(order []string, rows ...map[string]stats.Range) []string {
	var columns []string
	for _, name := range order {
		if slices.ContainsFunc(rows, func(r map[string]stats.Range) bool { return r[name].N > 0 }) {
			columns = append(columns, name)
		}
	}
	return columns
}

// MetricCells is a table row: a label, then each column's range.
func MetricCells(label string, columns []string, metrics map[string]stats.Range) []string {
	row := []string{label}
	for _, name := range columns {
		row = append(row, report.Range(metrics[name]))
	}
	return row
}
