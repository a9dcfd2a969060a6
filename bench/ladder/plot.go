package ladder

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Plot geometry: one row of two panels per scenario (CPU per player, RSS per player against
// players on a log axis), every relay and transport a series on the same axes.
const (
	panelW, panelH = 420, 260
	marginL        = 70
	marginT        = 40
	marginB        = 45
	gapX           = 90
	legendH        = 22
)

// palette is distinguishable on white and in greyscale order.
var palette = []string{"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b2df8a"}

type metric struct {
	title string
	value func(Step) float64
}

var plotted = []metric{
	{"relay CPU ms per second per player", func(s Step) float64 { return s.Proxy.CPUPerPlayerMs }},
	{"relay RSS KiB per player", func(s Step) float64 { return s.Proxy.RSSPerPlayerKiB }},
}

// Plot writes an SVG of CPU and RSS per player against players for every report. A filled
// point passed; a hollow one failed or was invalid. Steps that never ran are left out.
func Plot(w io.Writer, reports []Report) error {
	var rows []string
	for _, sc := range Scenarios {
		if hasSteps(reports, sc) {
			rows = append(rows, sc)
		}
	}
	legendRows := (len(reports) + 2) / 3
	width := marginL + 2*panelW + gapX + 30
	height := legendRows*legendH + 10 + len(rows)*(panelH+marginT+marginB)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, r := range reports {
		x, y := marginL+(i%3)*260, 16+(i/3)*legendH
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="5" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			x, y-4, color(i), x+10, y, html.EscapeString(r.Label()))
	}
	top := legendRows*legendH + 10
	for ri, sc := range rows {
		for mi, m := range plotted {
			x0 := marginL + mi*(panelW+gapX)
			y0 := top + ri*(panelH+marginT+marginB) + marginT
			panel(&b, reports, sc, m, x0, y0)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func color(i int) string { return palette[i%len(palette)] }

func hasSteps(reports []Report, scenario string) bool {
	n := 0
	forSteps(reports, scenario, func(int, Step) { n++ })
	return n > 0
}

// forSteps calls f with the report index and every step of the scenario that ran.
func forSteps(reports []Report, scenario string, f func(int, Step)) {
	for i, r := range reports {
		for _, res := range r.Scenarios {
			if res.Scenario != scenario {
				continue
			}
			for _, st := range res.Steps {
				if st.WindowS > 0 {
					f(i, st)
				}
			}
		}
	}
}

// axes are the ranges a panel maps: players on log10, the metric linear from 0 (or below, as
// RSS growth can be negative when the relay gave memory back).
type axes struct {
	minP, maxP, minY, maxY float64
	x0, y0                 int
}

func (a axes) x(players float64) float64 {
	span := math.Log10(a.maxP) - math.Log10(a.minP)
	if span == 0 {
		return float64(a.x0) + panelW/2
	}
	return float64(a.x0) + (math.Log10(players)-math.Log10(a.minP))/span*panelW
}

func (a axes) y(v float64) float64 { return float64(a.y0) + panelH - (v-a.minY)/(a.maxY-a.minY)*panelH }

func panel(b *strings.Builder, reports []Report, scenario string, m metric, x0, y0 int) {
	a := axes{minP: math.Inf(1), x0: x0, y0: y0}
	forSteps(reports, scenario, func(_ int, st Step) {
		p := float64(st.Players)
		a.minP, a.maxP = math.Min(a.minP, p), math.Max(a.maxP, p)
		a.minY, a.maxY = math.Min(a.minY, m.value(st)), math.Max(a.maxY, m.value(st))
	})
	a.maxY = niceCeil(a.maxY * 1.05)
	if a.minY < 0 {
		a.minY = -niceCeil(-a.minY * 1.05)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" font-weight="bold">%s: %s</text>`+"\n", x0, y0-12, scenario, m.title)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", x0, y0, panelW, panelH)
	for i := 0; i <= 4; i++ {
		v := a.minY + (a.maxY-a.minY)*float64(i)/4
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			x0, x0+panelW, a.y(v), a.y(v), x0-6, a.y(v)+4, trimNumber(v))
	}
	for _, p := range tickPlayers(a.minP, a.maxP) {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", a.x(p), y0+panelH+16, int(p))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">players</text>`+"\n", x0+panelW/2, y0+panelH+34)
	for i := range reports {
		series(b, reports[i:i+1], i, scenario, m, a)
	}
}

// series draws one report's line and points.
func series(b *strings.Builder, one []Report, index int, scenario string, m metric, a axes) {
	var pts []string
	forSteps(one, scenario, func(_ int, st Step) {
		x, y := a.x(float64(st.Players)), a.y(m.value(st))
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		fill := color(index)
		if st.Verdict.Result != Pass {
			fill = "white"
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s"><title>%s %d players: %s %s</title></circle>`+"\n",
			x, y, fill, color(index), html.EscapeString(one[0].Label()), st.Players, trimNumber(m.value(st)), st.Verdict.Result)
	})
	if len(pts) > 1 {
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), color(index))
	}
}

// tickPlayers are the ladder's counts that fall in the range, or its ends.
func tickPlayers(lo, hi float64) []float64 {
	var ticks []float64
	for _, p := range []float64{100, 250, 500, 1000, 2000, 4000, 8000, 16000} {
		if p >= lo && p <= hi {
			ticks = append(ticks, p)
		}
	}
	if len(ticks) == 0 {
		return []float64{lo, hi}
	}
	return ticks
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten, so grid labels are round.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func trimNumber(v float64) string { return fmt.Sprintf("%.3g", v) }
