package flood

import "fmt"

// Results of a step.
const (
	Pass    = "PASS"
	Fail    = "FAIL"
	Invalid = "INVALID" // the generator was the bottleneck: the step says nothing of the proxy
	// Limit is a step at the generator's top rate (target 0): the generator is the bottleneck by
	// design, so the step shows what the players kept at the most this machine can send.
	Limit = "LIMIT"
)

// Criteria decide a step; times in milliseconds, as the report shows them.
type Criteria struct {
	MinAchieved   float64 `json:"min_achieved_share"` // of the target rate
	MaxGenCores   float64 `json:"max_gen_cores"`      // mbbench's own CPU (flood, players, backend)
	MaxLateP99Ms  float64 `json:"max_late_p99_ms"`    // players' and backend's writes behind schedule
	MaxAddedP99Ms float64 `json:"max_added_p99_ms"`   // players' p99 through the proxy minus direct
}

// Measured is what a verdict depends on, so that a recorded step can be judged again.
type Measured struct {
	Target, Achieved float64
	GenCores         float64
	LateP99Ms        float64
	ProxyN, DirectN  uint64
	AddedP99Ms       float64
	Broken           int64
}

// Verdict is a step's result and why.
type Verdict struct {
	Result  string   `json:"result"`
	Reasons []string `json:"reasons,omitempty"`
}

// Judge decides a step. INVALID when the generator could not keep its side: below MinAchieved
// of a target rate, its CPU above MaxGenCores, its writes late, or no direct round trip to
// compare with; at target 0 those make LIMIT instead. Then FAIL on a broken legitimate
// session, no round trip through the proxy or an added p99 above the limit; else PASS
// (LIMIT stays LIMIT). Invalid wins over failure: a generator behind explains failures too.
func Judge(m Measured, c Criteria) Verdict {
	var gen []string
	if m.Target > 0 && m.Achieved < c.MinAchieved*m.Target {
		gen = append(gen, fmt.Sprintf("achieved %.0f/s < %.0f%% of %.0f/s", m.Achieved, 100*c.MinAchieved, m.Target))
	}
	if m.GenCores > c.MaxGenCores {
		gen = append(gen, fmt.Sprintf("generator CPU %.2f cores > %.2f", m.GenCores, c.MaxGenCores))
	}
	if m.LateP99Ms > c.MaxLateP99Ms {
		gen = append(gen, fmt.Sprintf("generator schedule late %.1f ms at p99 > %.0f", m.LateP99Ms, c.MaxLateP99Ms))
	}
	if m.DirectN == 0 {
		gen = append(gen, "no direct round trip to compare with")
	}
	if len(gen) > 0 && m.Target > 0 {
		return Verdict{Invalid, gen}
	}
	var fail []string
	if m.Broken > 0 {
		fail = append(fail, fmt.Sprintf("%d legitimate sessions broken", m.Broken))
	}
	switch {
	case m.ProxyN == 0:
		fail = append(fail, "no keepalive came back through the proxy")
	case m.DirectN > 0 && m.AddedP99Ms > c.MaxAddedP99Ms:
		fail = append(fail, fmt.Sprintf("added p99 %.2f ms > %.0f", m.AddedP99Ms, c.MaxAddedP99Ms))
	}
	switch {
	case len(fail) > 0:
		return Verdict{Fail, append(gen, fail...)}
	case len(gen) > 0:
		return Verdict{Limit, gen}
	}
	return Verdict{Result: Pass}
}
