package flood

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/moonbridge/moonbridge/bench/report"
)

// Plot geometry: one row per panel (legit added p99, proxy CPU), achieved flood rate on a log
// axis, one series per report and class.
const (
	plotW, plotH = 640, 240
	plotLeft     = 70
	plotTop      = 30
	plotGap      = 70
	legendRow    = 18
)

var colours = []string{"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666", "#1f78b4"}

type panelOf struct {
	title string
	value func(Step) float64
}

var panels = []panelOf{
	{"legit added p99 (ms) against flood connections/s", Step.AddedP99Ms},
	{"proxy CPU (cores) against flood connections/s", func(s Step) float64 { return s.ProxyCores }},
}

// series is one report's steps of one class.
type series struct {
	label string
	steps []Step
}

func seriesOf(reports []Report) []series {
	var out []series
	for _, r := range reports {
		at := map[string]int{}
		for _, st := range r.Steps {
			key := st.Class + " via " + st.Transport
			i, ok := at[key]
			if !ok {
				i = len(out)
				at[key] = i
				out = append(out, series{label: r.Label() + ": " + key})
			}
			out[i].steps = append(out[i].steps, st)
		}
	}
	return out
}

// Plot writes the SVG. A filled point passed; a hollow one did not (FAIL, INVALID or LIMIT:
// its tooltip says which).
func Plot(w io.Writer, reports []Report) error {
	ss := seriesOf(reports)
	legendH := (len(ss)+1)/2*legendRow + 10
	height := legendH + len(panels)*(plotH+plotTop+plotGap)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", plotLeft+plotW+40, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	for i, s := range ss {
		x, y := plotLeft+(i%2)*(plotW/2), 16+(i/2)*legendRow
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="5" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y-4, colours[i%len(colours)], x+10, y, html.EscapeString(s.label))
	}
	lo, hi := rateRange(ss)
	for pi, p := range panels {
		y0 := legendH + pi*(plotH+plotTop+plotGap) + plotTop
		drawPanel(&b, ss, p, lo, hi, y0)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// rateRange is the achieved rates' span, at least one decade.
func rateRange(ss []series) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, s := range ss {
		for _, st := range s.steps {
			r := math.Max(st.Flood.AchievedRate, 1)
			lo, hi = math.Min(lo, r), math.Max(hi, r)
		}
	}
	if hi == 0 {
		return 1, 10
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	return lo, math.Max(hi, 10*lo)
}

func drawPanel(b *strings.Builder, ss []series, p panelOf, lo, hi float64, y0 int) {
	top := 0.0
	for _, s := range ss {
		for _, st := range s.steps {
			top = math.Max(top, p.value(st))
		}
	}
	top = roundUp(top * 1.05)
	x := func(rate float64) float64 {
		return plotLeft + (math.Log10(math.Max(rate, 1))-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*plotW
	}
	y := func(v float64) float64 { return float64(y0) + plotH - math.Max(v, 0)/top*plotH }
	fmt.Fprintf(b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", plotLeft, y0-10, p.title)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", plotLeft, y0, plotW, plotH)
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", plotLeft-6, y(v)+4, report.Number(v))
	}
	for d := lo; d <= hi*1.0001; d *= 10 {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%.0f</text>`+"\n", x(d), y0+plotH+16, d)
	}
	for i, s := range ss {
		c := colours[i%len(colours)]
		var pts []string
		for _, st := range s.steps {
			px, py := x(st.Flood.AchievedRate), y(p.value(st))
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px, py))
			fill := c
			if st.Verdict.Result != Pass {
				fill = "white"
			}
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s"><title>%s at %.0f/s: %s %s</title></circle>`+"\n",
				px, py, fill, c, html.EscapeString(s.label), st.Flood.AchievedRate, report.Number(p.value(st)), st.Verdict.Result)
		}
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), c)
		}
	}
}

// roundUp is the next 1, 2 or 5 times a power of ten at or above v.
func roundUp(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
