package flood

import "testing"

var criteria = Criteria{MinAchieved: 0.9, MaxGenCores: 1, MaxLateP99Ms: 20, MaxAddedP99Ms: 5}

func TestJudge(t *testing.T) {
	ok := Measured{Target: 1000, Achieved: 995, GenCores: 0.4, LateP99Ms: 2, ProxyN: 100, DirectN: 50, AddedP99Ms: 1}
	with := func(f func(*Measured)) Measured { m := ok; f(&m); return m }
	cases := []struct {
		name    string
		in      Measured
		result  string
		reasons int
	}{
		{"healthy", ok, Pass, 0},
		{"achieved under 90% of the target", with(func(m *Measured) { m.Achieved = 899 }), Invalid, 1},
		{"achieved exactly 90%", with(func(m *Measured) { m.Achieved = 900 }), Pass, 0},
		{"generator CPU-bound", with(func(m *Measured) { m.GenCores = 1.5 }), Invalid, 1},
		{"generator late", with(func(m *Measured) { m.LateP99Ms = 30 }), Invalid, 1},
		{"invalid wins over broken sessions", with(func(m *Measured) { m.Achieved, m.Broken = 10, 3 }), Invalid, 1},
		{"a broken session", with(func(m *Measured) { m.Broken = 1 }), Fail, 1},
		{"added p99 over", with(func(m *Measured) { m.AddedP99Ms = 6 }), Fail, 1},
		{"nothing through the proxy", with(func(m *Measured) { m.ProxyN = 0 }), Fail, 1},
		{"max rate, generator-bound", with(func(m *Measured) { m.Target, m.GenCores = 0, 1.9 }), Limit, 1},
		{"max rate with a broken session", with(func(m *Measured) { m.Target, m.GenCores, m.Broken = 0, 1.9, 2 }), Fail, 2},
		{"max rate within bounds", with(func(m *Measured) { m.Target = 0 }), Pass, 0},
	}
	for _, c := range cases {
		v := Judge(c.in, criteria)
		if v.Result != c.result || len(v.Reasons) != c.reasons {
			t.Errorf("%s: %s %q, want %s with %d reasons", c.name, v.Result, v.Reasons, c.result, c.reasons)
		}
	}
}
