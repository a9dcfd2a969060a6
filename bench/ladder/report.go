package ladder

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/moonbridge/moonbridge/bench/report"
)

// Report is what `mbbench ladder --json` prints: one relay over one transport, every scenario.
type Report struct {
	Relay     string          `json:"relay"`
	Transport string          `json:"transport"`
	Meta      json.RawMessage `json:"meta,omitempty"` // the environment, as mbbench run prints it
	Criteria  Criteria        `json:"criteria"`
	Settings  Settings        `json:"settings"`
	Scenarios []Result        `json:"scenarios"`
}

// Settings are the load's knobs a reader needs to compare reports.
type Settings struct {
	WindowS       float64 `json:"window_s"`
	IntervalS     float64 `json:"interval_s"`
	JoinRate      float64 `json:"join_rate"`
	DirectPlayers int     `json:"direct_players"`
}

// Label names a relay and transport in tables and the plot.
func (r Report) Label() string { return r.Relay + " " + r.Transport }

// Merge joins the reports of one relay and transport (a ladder run per scenario, say) into one,
// in the order they first appear; the first report's meta, criteria and settings stay.
func Merge(reports []Report) []Report {
	var out []Report
	at := map[string]int{}
	for _, r := range reports {
		i, ok := at[r.Label()]
		if !ok {
			at[r.Label()] = len(out)
			out = append(out, r)
			continue
		}
		out[i].Scenarios = append(slices.Clip(out[i].Scenarios), r.Scenarios...)
	}
	return out
}

// Markdown writes the headline (supported players per scenario) and every step of every report.
func Markdown(w io.Writer, reports []Report) {
	header := []string{"relay", "transport"}
	header = append(header, Scenarios...)
	var rows [][]string
	for _, r := range reports {
		row := []string{r.Relay, r.Transport}
		for _, sc := range Scenarios {
			row = append(row, headline(r, sc))
		}
		rows = append(rows, row)
	}
	fmt.Fprintln(w, "Supported players (the largest count that passed; why the ladder stopped):")
	fmt.Fprintln(w)
	report.Table(w, header, rows)
	for _, sc := range Scenarios {
		if rows := stepRows(reports, sc); len(rows) > 0 {
			fmt.Fprintf(w, "\nScenario %s:\n\n", sc)
			report.Table(w, stepHeader, rows)
		}
	}
}

func headline(r Report, scenario string) string {
	for _, res := range r.Scenarios {
		if res.Scenario == scenario {
			return fmt.Sprintf("%d (%s)", res.Supported, res.Stop)
		}
	}
	return "-"
}

var stepHeader = []string{"relay", "players", "result", "added p99 ms", "relay p99 ms", "direct p99 ms",
	"join p99 ms", "closed/refused/connect", "relay cores (ticks)", "CPU ms/s per player", "RSS MiB",
	"RSS KiB/player", "threads", "generator cores", "late p99 ms", "reasons"}

func stepRows(reports []Report, scenario string) [][]string {
	var rows [][]string
	for _, r := range reports {
		for _, res := range r.Scenarios {
			if res.Scenario != scenario {
				continue
			}
			for _, st := range res.Steps {
				rows = append(rows, stepCells(r.Label(), st))
			}
		}
	}
	return rows
}

func stepCells(label string, st Step) []string {
	v, p := st.Verdict, st.Proxy
	join := "-"
	if st.Joins > 0 {
		join = report.Number(st.JoinP99Ms)
	}
	return []string{label, fmt.Sprint(st.Players), v.Result, report.Number(v.AddedP99Ms), report.Number(v.ProxyP99Ms),
		report.Number(v.DirectP99Ms), join, fmt.Sprintf("%d/%d/%d", st.Closed, st.Refused, st.ConnectFailed),
		fmt.Sprintf("%s (%d)", report.Number(p.Cores), p.CPUTicks), report.Number(p.CPUPerPlayerMs),
		report.Number(float64(p.RSSKiB) / 1024), report.Number(p.RSSPerPlayerKiB), fmt.Sprint(p.Threads),
		report.Number(st.GenCores), report.Number(st.LateP99Ms), strings.Join(v.Reasons, "; ")}
}
