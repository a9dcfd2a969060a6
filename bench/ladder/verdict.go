package ladder

import (
	"fmt"
	"slices"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// Results of a step.
const (
	Pass    = "PASS"
	Fail    = "FAIL"
	Invalid = "INVALID" // the load generator or the fake backend was the bottleneck
)

// Criteria decide a step. Times are in milliseconds, as the report shows them.
type Criteria struct {
	MaxAddedP99Ms float64 `json:"max_added_p99_ms"` // keepalive p99 through the relay minus direct
	MaxJoinP99Ms  float64 `json:"max_join_p99_ms"`  // dial to the last byte of the login burst
	MaxLateP99Ms  float64 `json:"max_late_p99_ms"`  // generator and backend writes behind schedule
	MaxGenCores   float64 `json:"max_gen_cores"`    // CPU of the mbbench process (generator and backend)
}

// Interval is one slice of a step's window: the keepalive round trips that ended in it.
type Interval struct {
	ProxyP99Ms  float64 `json:"proxy_p99_ms"`
	DirectP99Ms float64 `json:"direct_p99_ms"`
	ProxyN      uint64  `json:"proxy_n"`
	DirectN     uint64  `json:"direct_n"`
}

// Measured is what a step's verdict depends on: a recorded step can be judged again.
type Measured struct {
	Players       int        `json:"players"`
	Intervals     []Interval `json:"intervals"`
	LateP99Ms     float64    `json:"late_p99_ms"` // over the whole window
	GenCores      float64    `json:"gen_cores"`
	Closed        int64      `json:"closed"`         // sessions that ended before the scenario did
	Refused       int64      `json:"refused"`        // logins that did not complete
	ConnectFailed int64      `json:"connect_failed"` // dials (and ws/wss handshakes) that failed
	Joins         int        `json:"joins"`          // logins timed in this step's join ramp (join scenario)
	JoinP99Ms     float64    `json:"join_p99_ms"`
	FDsNeeded     uint64     `json:"fds_needed"` // by the generator for this step
	FDLimit       uint64     `json:"fd_limit"`
}

// Verdict is a step's result, its reasons and the medians over the window's intervals.
type Verdict struct {
	Result      string   `json:"result"`
	Reasons     []string `json:"reasons,omitempty"`
	AddedP99Ms  float64  `json:"added_p99_ms"`
	ProxyP99Ms  float64  `json:"proxy_p99_ms"`
	DirectP99Ms float64  `json:"direct_p99_ms"`
	Intervals   int      `json:"intervals"` // those with round trips on both paths
}

// Judge decides a step. It is INVALID when the generator could not keep its side (too much
// CPU, writes late, too few descriptors) or nothing direct was measured to compare with; else
// FAIL on any closed, refused or failed session, no round trip through the relay, an added
// p99 or a join p99 over the limits; else PASS. Invalid wins: a generator that fell behind
// explains failures too.
func Judge(m Measured, c Criteria) Verdict {
	v := medians(m.Intervals)
	if m.FDsNeeded > m.FDLimit {
		v.Reasons = append(v.Reasons, fmt.Sprintf("generator needs %d file descriptors, limit %d", m.FDsNeeded, m.FDLimit))
	}
	if m.GenCores > c.MaxGenCores {
		v.Reasons = append(v.Reasons, fmt.Sprintf("generator CPU %.2f cores > %.2f", m.GenCores, c.MaxGenCores))
	}
	if m.LateP99Ms > c.MaxLateP99Ms {
		v.Reasons = append(v.Reasons, fmt.Sprintf("generator schedule late %.1f ms at p99 > %.0f", m.LateP99Ms, c.MaxLateP99Ms))
	}
	if len(v.Reasons) == 0 && !anyN(m.Intervals, func(i Interval) uint64 { return i.DirectN }) {
		v.Reasons = append(v.Reasons, "no direct round trip to compare with")
	}
	if len(v.Reasons) > 0 {
		v.Result = Invalid
		return v
	}
	v.Reasons = failures(m, c, v)
	v.Result = Pass
	if len(v.Reasons) > 0 {
		v.Result = Fail
	}
	return v
}

func failures(m Measured, c Criteria, v Verdict) []string {
	var r []string
	for _, f := range []struct {
		n    int64
		what string
	}{{m.Closed, "sessions closed"}, {m.Refused, "logins refused"}, {m.ConnectFailed, "connects failed"}} {
		if f.n > 0 {
			r = append(r, fmt.Sprintf("%d %s", f.n, f.what))
		}
	}
	switch {
	case !anyN(m.Intervals, func(i Interval) uint64 { return i.ProxyN }):
		r = append(r, "no keepalive came back through the relay")
	case v.AddedP99Ms > c.MaxAddedP99Ms:
		r = append(r, fmt.Sprintf("added p99 %.2f ms > %.0f", v.AddedP99Ms, c.MaxAddedP99Ms))
	}
	if m.Joins > 0 && m.JoinP99Ms > c.MaxJoinP99Ms {
		r = append(r, fmt.Sprintf("join p99 %.0f ms > %.0f", m.JoinP99Ms, c.MaxJoinP99Ms))
	}
	return r
}

// medians of the intervals that have round trips on both paths: the added latency is taken
// per interval (proxy p99 minus direct p99), then its median.
func medians(intervals []Interval) Verdict {
	var added, proxy, direct []float64
	for _, i := range intervals {
		if i.ProxyN > 0 && i.DirectN > 0 {
			added = append(added, i.ProxyP99Ms-i.DirectP99Ms)
			proxy = append(proxy, i.ProxyP99Ms)
			direct = append(direct, i.DirectP99Ms)
		}
	}
	if len(added) == 0 {
		return Verdict{}
	}
	median := func(vs []float64) float64 { return stats.Median(slices.Sorted(slices.Values(vs))) }
	return Verdict{AddedP99Ms: median(added), ProxyP99Ms: median(proxy), DirectP99Ms: median(direct), Intervals: len(added)}
}

func anyN(intervals []Interval, n func(Interval) uint64) bool {
	return slices.ContainsFunc(intervals, func(i Interval) bool { return n(i) > 0 })
}
