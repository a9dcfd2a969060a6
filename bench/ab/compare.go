package ab

import (
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/bench/report"
	"github.com/moonbridge/moonbridge/bench/stats"
	"github.com/moonbridge/moonbridge/bench/suite"
)

// Comparison is what an A/B run found.
type Comparison struct {
	Variants []Variant `json:"variants"`
	Pairs    int       `json:"pairs"`
	// Summary[v][metric] is the range over all proxy phases of variant v.
	Summary []map[string]stats.Range `json:"summary"`
	// Ratios[v][metric][p] is variant v's median over variant 0's within pair p.
	Ratios []map[string][]float64 `json:"ratios"`
}

// Compare summarises results indexed [variant][pair].
func Compare(variants []Variant, results [][][]suite.PhaseReport) Comparison {
	c := Comparison{Variants: variants, Pairs: len(results[0])}
	for _, runs := range results {
		var all []suite.PhaseReport
		for _, phases := range runs {
			all = append(all, phases...)
		}
		c.Summary = append(c.Summary, suite.Summarize(all)[suite.PathProxy])
		c.Ratios = append(c.Ratios, pairRatios(runs, results[0]))
	}
	return c
}

// pairRatios divides, pair by pair, a variant's proxy median by the baseline's.
func pairRatios(runs, base [][]suite.PhaseReport) map[string][]float64 {
	ratios := map[string][]float64{}
	for p := range runs {
		mine := suite.Summarize(runs[p])[suite.PathProxy]
		theirs := suite.Summarize(base[p])[suite.PathProxy]
		for name, r := range mine {
			if b, ok := theirs[name]; ok && b.N > 0 && b.Median != 0 {
				ratios[name] = append(ratios[name], r.Median/b.Median)
			}
		}
	}
	return ratios
}

// Markdown writes the per-variant table and, for every variant after the first, its per-pair
// ratios, of the metrics of suite.MetricOrder that were measured.
func (c Comparison) Markdown(w io.Writer) { c.MarkdownOf(w, suite.Columns(c.Summary...)) }

// MarkdownOf is Markdown of the metrics named by columns, in that order.
func (c Comparison) MarkdownOf(w io.Writer, columns []string) {
	header := append([]string{"variant"}, columns...)
	var rows [][]string
	for i, v := range c.Variants {
		rows = append(rows, suite.MetricCells(v.Name, columns, c.Summary[i]))
	}
	report.Table(w, header, rows)
	if len(c.Variants) < 2 {
		return
	}
	fmt.Fprintf(w, "\nPer-pair ratios over %s (pair 1, 2, ...):\n\n", c.Variants[0].Name)
	rows = nil
	for i, v := range c.Variants[1:] {
		row := []string{v.Name}
		for _, name := range columns {
			row = append(row, ratioList(c.Ratios[i+1][name]))
		}
		rows = append(rows, row)
	}
	report.Table(w, header, rows)
}

func ratioList(rs []float64) string {
	if len(rs) == 0 {
		return "-"
	}
	s := ""
	for i, r := range rs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.2f", r)
	}
	return s
}
