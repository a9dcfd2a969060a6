package flood

// Step is one flood step as the report prints it.
type Step struct {
	Class          string  `json:"class"`
	Transport      string  `json:"transport"`
	Target         float64 `json:"target_rate"` // 0: the generator's top rate
	SourceNetworks int     `json:"source_networks"`
	WindowS        float64 `json:"window_s"`
	Flood          Result  `json:"flood"`

	ProxyCores float64 `json:"proxy_cores"`
	RSSKiB     int64   `json:"proxy_rss_peak_kib"`
	FDs        int     `json:"proxy_fds_peak"`
	GenCores   float64 `json:"generator_cores"`
	// ListenDrops are the connections the kernel dropped at a full listener in the window
	// (TcpExt ListenDrops, the whole machine's): offered by the flood, never accepted.
	ListenDrops uint64  `json:"listen_drops"`
	LateP99Ms   float64 `json:"late_p99_ms"`

	Players       int64   `json:"legit_players"`       // proxy sessions logged in at the start
	Alive         int64   `json:"legit_alive"`         // of those, still playing at the window's end
	Broken        int64   `json:"legit_broken"`        // ended during the step's window
	Corrupted     int64   `json:"legit_corrupted"`     // of those, by a byte that differed
	BaselineP99Ms float64 `json:"legit_p99_before_ms"` // through the proxy, in the warm-up before the flood
	ProxyP99Ms    float64 `json:"legit_p99_ms"`
	DirectP99Ms   float64 `json:"direct_p99_ms"`
	ProxyN        uint64  `json:"legit_round_trips"`
	DirectN       uint64  `json:"direct_round_trips"`
	FirstError    string  `json:"first_error,omitempty"`

	// HasJoined is the hasJoined requests the fake session server got, from before the flood to
	// after its last connection: what a login meter lets through.
	HasJoined int `json:"session_server_requests"`

	Counters []Change `json:"counters"` // the proxy's moonbridge_* counters that moved
	Refused  float64  `json:"refused"`  // the sum of those named *refused*
	Verdict  Verdict  `json:"verdict"`
}

// AddedP99Ms is the latency the proxy adds at p99: the players' p99 through the proxy minus
// the direct players' p99 to the backend, both in the flood's window.
func (s Step) AddedP99Ms() float64 { return s.ProxyP99Ms - s.DirectP99Ms }

// Measured is what the verdict is taken from.
func (s Step) Measured() Measured {
	return Measured{Target: s.Target, Achieved: s.Flood.AchievedRate, GenCores: s.GenCores, LateP99Ms: s.LateP99Ms,
		ProxyN: s.ProxyN, DirectN: s.DirectN, AddedP99Ms: s.AddedP99Ms(), Broken: s.Broken}
}
