package flood

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

const exposition = `# HELP moonbridge_connections_refused_total Refused.
# TYPE moonbridge_connections_refused_total counter
moonbridge_connections_refused_total{reason="rate"} 10
moonbridge_connections_refused_total{reason="network"} 4
# TYPE moonbridge_sessions_open gauge
moonbridge_sessions_open 12
# TYPE moonbridge_logins_total counter
moonbridge_logins_total{route="open"} 3
# TYPE go_gc_cycles_total counter
go_gc_cycles_total 9
`

func TestChangesNameEveryMovedCounter(t *testing.T) {
	before, err := ParseCounters(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 3 {
		t.Fatalf("parsed %v: want the three moonbridge counters, no gauge, no go_*", before)
	}
	after := strings.NewReplacer(`{reason="rate"} 10`, `{reason="rate"} 25`, "go_gc_cycles_total 9", "go_gc_cycles_total 20").Replace(exposition) +
		"# TYPE moonbridge_blocked_total counter\nmoonbridge_blocked_total{network=\"127.10.0.0/24\"} 2\n"
	a, err := ParseCounters(strings.NewReader(after))
	if err != nil {
		t.Fatal(err)
	}
	got := Changes(before, a)
	want := []Change{{`moonbridge_blocked_total{network="127.10.0.0/24"}`, 2}, {`moonbridge_connections_refused_total{reason="rate"}`, 15}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("changes %v, want %v", got, want)
	}
	if r := Refusals(got); r != 15 {
		t.Errorf("refusals %v, want 15 (only the *refused* series)", r)
	}
}

func sampleReport() Report {
	st := Step{Class: ClassPing, Transport: TransportTCP, Target: 5000, SourceNetworks: 4096, WindowS: 8,
		Flood:      Result{Started: 40000, AchievedRate: 4990, Answered: 39000, Closed: 1000, Sources: 40000},
		ProxyCores: 0.8, RSSKiB: 40960, FDs: 900, Players: 200, Alive: 200, ProxyP99Ms: 3.5, DirectP99Ms: 1, BaselineP99Ms: 2,
		ProxyN: 100, DirectN: 40, Counters: []Change{{`moonbridge_pings_refused_total{why="network"}`, 30000}}, Refused: 30000,
		Verdict: Verdict{Result: Pass}}
	max := st
	max.Target, max.Flood.AchievedRate, max.Verdict = 0, 12000, Verdict{Limit, []string{"generator CPU 1.10 cores > 1.00"}}
	return Report{Proxy: "moonbridge", Defences: "on", Steps: []Step{st, max}}
}

func TestMarkdownAndJSON(t *testing.T) {
	var md bytes.Buffer
	Markdown(&md, []Report{sampleReport()})
	for _, want := range []string{
		"| moonbridge on | ping | tcp | 5000/4990 | 40000 in 4096 /24s | PASS | 0.800 | 40.00 | 900 | 200/200 | 0 broken, 0 corrupted | 3.500 (2.000) | 2.500 | 30000 | 0 |",
		"| moonbridge on | ping | tcp | max/12000 |",
		"LIMIT", "generator CPU 1.10 cores > 1.00",
		`- moonbridge on ping tcp 5000: moonbridge_pings_refused_total{why="network"} +30000`,
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	b, err := json.Marshal(sampleReport())
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || len(back.Steps) != 2 || back.Steps[0].Counters[0].Delta != 30000 {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

func TestPlotIsSVGWithAPointPerStepAndPanel(t *testing.T) {
	var svg bytes.Buffer
	if err := Plot(&svg, []Report{sampleReport()}); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg.Bytes(), new(struct{})); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	// One legend dot (one class), then 2 steps in each of the 2 panels; the LIMIT step hollow.
	if n := strings.Count(svg.String(), "<circle"); n != 5 {
		t.Errorf("%d circles, want 5", n)
	}
	if n := strings.Count(svg.String(), `fill="white" stroke`); n != 2 {
		t.Errorf("%d hollow points, want 2 (the LIMIT step in each panel)", n)
	}
}
