package flood

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/moonbridge/moonbridge/bench/report"
)

// Report is what `mbbench flood --json` prints: one proxy, one set of defences, every step.
type Report struct {
	Proxy    string          `json:"proxy"`    // moonbridge, haproxy, ...
	Defences string          `json:"defences"` // a label: on, off, stick-table, ...
	Meta     json.RawMessage `json:"meta,omitempty"`
	Criteria Criteria        `json:"criteria"`
	Steps    []Step          `json:"steps"`
}

// Label names the report in tables and the plot.
func (r Report) Label() string { return r.Proxy + " " + r.Defences }

var header = []string{"proxy", "class", "via", "rate target/achieved", "sources", "result",
	"proxy cores", "RSS MiB", "fds", "legit alive/started", "lost", "legit p99 ms (before)",
	"added p99 ms", "refused", "hasJoined", "generator cores", "flood answered/closed/held/failed", "reasons"}

// Markdown writes every step of every report in one table, then the counters each step moved.
func Markdown(w io.Writer, reports []Report) {
	var rows [][]string
	for _, r := range reports {
		for _, st := range r.Steps {
			rows = append(rows, cells(r.Label(), st))
		}
	}
	report.Table(w, header, rows)
	fmt.Fprintln(w, "\nCounters that moved (the proxy's moonbridge_* counters, after the step minus before):")
	fmt.Fprintln(w)
	for _, r := range reports {
		for _, st := range r.Steps {
			fmt.Fprintf(w, "- %s %s %s %s: %s\n", r.Label(), st.Class, st.Transport, rate(st.Target), counterList(st.Counters))
		}
	}
}

func cells(label string, st Step) []string {
	f := st.Flood
	return []string{label, st.Class, st.Transport,
		fmt.Sprintf("%s/%.0f", rate(st.Target), f.AchievedRate),
		fmt.Sprintf("%d in %d /24s", f.Sources, st.SourceNetworks), st.Verdict.Result,
		report.Number(st.ProxyCores), report.Number(float64(st.RSSKiB) / 1024), fmt.Sprint(st.FDs),
		fmt.Sprintf("%d/%d", st.Alive, st.Players), fmt.Sprintf("%d broken, %d corrupted", st.Broken, st.Corrupted),
		fmt.Sprintf("%s (%s)", report.Number(st.ProxyP99Ms), report.Number(st.BaselineP99Ms)),
		report.Number(st.AddedP99Ms()), fmt.Sprintf("%.0f", st.Refused), fmt.Sprint(st.HasJoined), report.Number(st.GenCores),
		fmt.Sprintf("%d/%d/%d/%d", f.Answered, f.Closed, f.Held, f.ConnectFailed+f.Other),
		strings.Join(st.Verdict.Reasons, "; ")}
}

// rate prints a target rate; 0 is the generator's top.
func rate(target float64) string {
	if target == 0 {
		return "max"
	}
	return fmt.Sprintf("%.0f", target)
}

func counterList(cs []Change) string {
	if len(cs) == 0 {
		return "none"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s +%g", c.Series, c.Delta)
	}
	return strings.Join(parts, ", ")
}

// ProgressLine is one step in a line, for the raw output.
func ProgressLine(st Step) string {
	return fmt.Sprintf("flood %s %s %s: %s achieved %.0f/s, proxy %.2f cores %.1f MiB %d fds; legit %d/%d alive, %d broken, p99 %.2f ms (before %.2f, direct %.2f); refused %.0f, hasJoined %d; generator %.2f cores (flood threads %.2f); listen drops %d; %s",
		st.Class, st.Transport, rate(st.Target), st.Verdict.Result, st.Flood.AchievedRate, st.ProxyCores,
		float64(st.RSSKiB)/1024, st.FDs, st.Alive, st.Players, st.Broken, st.ProxyP99Ms, st.BaselineP99Ms,
		st.DirectP99Ms, st.Refused, st.HasJoined, st.GenCores, st.Flood.FloodCores, st.ListenDrops, strings.Join(st.Verdict.Reasons, "; "))
}
