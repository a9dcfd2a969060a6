package jointime

import (
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// Summary is a run's numbers: per cell and path the round medians summarised, with the pair
// differences from the first path, and per path the line through the cells.
type Summary struct {
	Cells []Cell `json:"cells"`
	Fits  []Fit  `json:"fits"`
}

// Cell is one RTT's paths.
type Cell struct {
	RTT   time.Duration `json:"rtt_ns"`
	Paths []PathCell    `json:"paths"`
}

// PathCell is one path at one RTT, over its round medians (milliseconds).
type PathCell struct {
	Path         string      `json:"path"`
	LoginSuccess stats.Range `json:"login_success_ms"`
	Connect      stats.Range `json:"connect_ms"`
	// InRTTs is the median login success over the cell's RTT.
	InRTTs float64 `json:"in_rtts"`
	// Diff and DiffRTTs are the pairs' login success minus the first path's of the same round,
	// in milliseconds and in RTTs; absent (N 0) for the first path. Pairs is Diff's values by
	// round, in RTTs.
	Diff     stats.Range `json:"diff_ms"`
	DiffRTTs stats.Range `json:"diff_rtts"`
	Pairs    []float64   `json:"pairs_rtts,omitempty"`
}

// Fit is a path's least-squares line of login success (its round medians) against the RTT:
// RoundTrips is the slope, FixedMs the intercept. Absent with fewer than two RTTs.
type Fit struct {
	Path       string  `json:"path"`
	RoundTrips float64 `json:"round_trips"`
	FixedMs    float64 `json:"fixed_ms"`
}

// Summarize makes the summary of samples, for the paths and RTTs in the order given.
func Summarize(samples []Sample, paths []string, rtts []time.Duration) Summary {
	var s Summary
	for _, rtt := range rtts {
		c := Cell{RTT: rtt}
		base := roundMedians(samples, rtt, paths[0], loginSuccess)
		for i, p := range paths {
			c.Paths = append(c.Paths, pathCell(samples, rtt, p, base, i == 0))
		}
		s.Cells = append(s.Cells, c)
	}
	if len(rtts) >= 2 {
		for _, p := range paths {
			s.Fits = append(s.Fits, fit(samples, p, rtts))
		}
	}
	return s
}

func loginSuccess(t Timing) time.Duration { return t.LoginSuccess }
func connect(t Timing) time.Duration      { return t.Connect }

func pathCell(samples []Sample, rtt time.Duration, path string, base []float64, isBase bool) PathCell {
	ls := roundMedians(samples, rtt, path, loginSuccess)
	rttMs := ms(rtt)
	pc := PathCell{Path: path, LoginSuccess: stats.Summarize(ls), Connect: stats.Summarize(roundMedians(samples, rtt, path, connect))}
	pc.InRTTs = pc.LoginSuccess.Median / rttMs
	if isBase || len(ls) != len(base) {
		return pc
	}
	diffs := make([]float64, len(ls))
	for i := range ls {
		diffs[i] = ls[i] - base[i]
		pc.Pairs = append(pc.Pairs, diffs[i]/rttMs)
	}
	pc.Diff, pc.DiffRTTs = stats.Summarize(diffs), stats.Summarize(pc.Pairs)
	return pc
}

// fit is the least-squares line through every round median of path at every RTT.
func fit(samples []Sample, path string, rtts []time.Duration) Fit {
	var n, sx, sy, sxx, sxy float64
	for _, rtt := range rtts {
		x := ms(rtt)
		for _, y := range roundMedians(samples, rtt, path, loginSuccess) {
			n++
			sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		}
	}
	f := Fit{Path: path}
	if d := n*sxx - sx*sx; d != 0 {
		f.RoundTrips = (n*sxy - sx*sy) / d
		f.FixedMs = (sy - f.RoundTrips*sx) / n
	}
	return f
}
