package ladder

import (
	"encoding/json"
	"slices"
	"testing"
)

var criteria = Criteria{MaxAddedP99Ms: 5, MaxJoinP99Ms: 1000, MaxLateP99Ms: 20, MaxGenCores: 0.7}

// recorded is a step as `mbbench ladder --json` writes its measured part: 500 idle players,
// three 5 s intervals, a healthy generator.
const recorded = `{"players": 500, "intervals": [
  {"proxy_p99_ms": 1.9, "direct_p99_ms": 0.6, "proxy_n": 2500, "direct_n": 250},
  {"proxy_p99_ms": 9.5, "direct_p99_ms": 0.7, "proxy_n": 2500, "direct_n": 250},
  {"proxy_p99_ms": 2.1, "direct_p99_ms": 0.5, "proxy_n": 2500, "direct_n": 250}],
 "late_p99_ms": 1.2, "gen_cores": 0.31, "closed": 0, "refused": 0, "connect_failed": 0,
 "joins": 0, "join_p99_ms": 0, "fds_needed": 1264, "fd_limit": 20000}`

func TestJudge(t *testing.T) {
	var base Measured
	if err := json.Unmarshal([]byte(recorded), &base); err != nil {
		t.Fatal(err)
	}
	with := func(change func(*Measured)) Measured {
		m := base
		m.Intervals = slices.Clone(base.Intervals)
		change(&m)
		return m
	}
	cases := []struct {
		name    string
		in      Measured
		result  string
		reasons int
	}{
		// One interval's 8.8 ms spike is outvoted by the median (1.3, 1.6 and 8.8 ms added).
		{"recorded step passes", base, Pass, 0},
		{"added p99 over 5 ms in most intervals", with(func(m *Measured) { m.Intervals[0].ProxyP99Ms = 7 }), Fail, 1},
		{"one session closed", with(func(m *Measured) { m.Closed = 1 }), Fail, 1},
		{"refused and failed connects", with(func(m *Measured) { m.Refused, m.ConnectFailed = 3, 2 }), Fail, 2},
		{"join p99 over 1 s", with(func(m *Measured) { m.Joins, m.JoinP99Ms = 500, 1400 }), Fail, 1},
		{"join p99 under 1 s", with(func(m *Measured) { m.Joins, m.JoinP99Ms = 500, 900 }), Pass, 0},
		{"nothing came back through the relay", with(func(m *Measured) {
			for i := range m.Intervals {
				m.Intervals[i].ProxyN = 0
			}
		}), Fail, 1},
		{"generator over its CPU share", with(func(m *Measured) { m.GenCores = 0.9 }), Invalid, 1},
		{"generator late at p99", with(func(m *Measured) { m.LateP99Ms = 35 }), Invalid, 1},
		{"invalid wins over failures", with(func(m *Measured) { m.LateP99Ms, m.Closed = 35, 40 }), Invalid, 1},
		{"too few descriptors: the step never ran", Measured{Players: 16000, FDsNeeded: 32264, FDLimit: 20000}, Invalid, 1},
		{"no direct round trip", with(func(m *Measured) {
			for i := range m.Intervals {
				m.Intervals[i].DirectN = 0
			}
		}), Invalid, 1},
	}
	for _, c := range cases {
		v := Judge(c.in, criteria)
		if v.Result != c.result || len(v.Reasons) != c.reasons {
			t.Errorf("%s: %s %q, want %s with %d reasons", c.name, v.Result, v.Reasons, c.result, c.reasons)
		}
	}
}

func TestJudgeMediansSkipOneSidedIntervals(t *testing.T) {
	v := Judge(Measured{Intervals: []Interval{
		{ProxyP99Ms: 3, DirectP99Ms: 1, ProxyN: 10, DirectN: 5},
		{ProxyP99Ms: 50, ProxyN: 10}, // no direct sample: not comparable
		{ProxyP99Ms: 5, DirectP99Ms: 2, ProxyN: 10, DirectN: 5},
	}}, criteria)
	if v.Result != Pass || v.Intervals != 2 || v.AddedP99Ms != 2.5 || v.ProxyP99Ms != 4 || v.DirectP99Ms != 1.5 {
		t.Errorf("verdict %+v, want PASS over 2 intervals: added 2.5, proxy 4, direct 1.5", v)
	}
}
