// Package report renders benchmark results as bench/results/ records show them: markdown
// tables of median [min-max], and one line of metrics per phase for the raw output.
package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// Number formats a metric with precision that suits its size: frames/s as integers, latencies
// in ms with three decimals, ratios with three.
func Number(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// Range formats "median [min-max]", or "-" when nothing was measured.
func Range(r stats.Range) string {
	if r.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%s [%s-%s]", Number(r.Median), Number(r.Min), Number(r.Max))
}

// Table writes a markdown table.
func Table(w io.Writer, header []string, rows [][]string) {
	line := func(cells []string) { fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")) }
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
}

// PhaseLine writes "label: name=value ..." with the metrics in order, skipping absent ones.
func PhaseLine(w io.Writer, label string, order []string, metrics map[string]float64) {
	var b strings.Builder
	b.WriteString(label)
	b.WriteString(":")
	for _, name := range order {
		if v, ok := metrics[name]; ok {
			fmt.Fprintf(&b, " %s=%s", name, Number(v))
		}
	}
	fmt.Fprintln(w, b.String())
}
