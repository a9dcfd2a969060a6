package jointime

import (
	"fmt"
	"io"
	"strings"

	"github.com/moonbridge/moonbridge/bench/report"
)

// Markdown writes the summary as a record shows it: the cells' table, the lines through the
// cells, and every pair's difference.
func (s Summary) Markdown(w io.Writer) {
	fmt.Fprintln(w, "Login success and connect: medians of the rounds' medians [min-max], ms. Difference: per round, the path's median minus the first path's (pairs).")
	fmt.Fprintln(w)
	var rows [][]string
	for _, c := range s.Cells {
		for _, p := range c.Paths {
			rows = append(rows, []string{c.RTT.String(), p.Path, report.Range(p.LoginSuccess), report.Number(p.InRTTs),
				report.Range(p.Connect), report.Range(p.Diff), report.Range(p.DiffRTTs)})
		}
	}
	report.Table(w, []string{"RTT", "path", "login success, ms", "in RTTs", "connect, ms", "difference, ms", "difference, RTTs"}, rows)
	if len(s.Fits) > 0 {
		fmt.Fprintln(w)
		rows = rows[:0]
		for _, f := range s.Fits {
			rows = append(rows, []string{f.Path, report.Number(f.RoundTrips), report.Number(f.FixedMs)})
		}
		report.Table(w, []string{"path", "round trips (slope)", "fixed, ms (intercept)"}, rows)
	}
	fmt.Fprintln(w)
	rows = rows[:0]
	for _, c := range s.Cells {
		for _, p := range c.Paths[1:] {
			pairs := make([]string, len(p.Pairs))
			for i, v := range p.Pairs {
				pairs[i] = fmt.Sprintf("%.2f", v)
			}
			rows = append(rows, []string{c.RTT.String(), p.Path + " − " + c.Paths[0].Path, strings.Join(pairs, ", ")})
		}
	}
	report.Table(w, []string{"RTT", "pair", "difference per round, RTTs"}, rows)
}
