package jointime

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/moonbridge/moonbridge/bench/ab"
	"github.com/moonbridge/moonbridge/bench/stats"
)

// Path is one way a game client reaches the backend, from where its dial starts.
type Path struct {
	Name string
	Dial Dial
}

// Config is a run: the cells, the paths and how many joins each makes.
type Config struct {
	RTTs    []time.Duration
	SetRTT  func(time.Duration) // sets the network's round trip before each cell
	Paths   []Path              // the first is the baseline of the differences
	Rounds  int                 // rounds (pairs) per cell
	Joins   int                 // joins per path per round; the round's value is their median
	Warmup  int                 // joins per path at the start of each cell, not counted
	Timeout time.Duration       // bounds each join
	Log     io.Writer           // a line per cell and per join (the raw output); nil: none
	// OneWrite has the game client write the handshake and Login Start in one write instead of
	// vanilla's two packets (Once).
	OneWrite bool
}

// Sample is one counted join.
type Sample struct {
	RTT   time.Duration `json:"rtt_ns"`
	Round int           `json:"round"` // from 1
	Path  string        `json:"path"`
	Join  int           `json:"join"` // from 1, within the round
	At    time.Time     `json:"at"`
	Timing
}

// Run plays every cell and returns the counted joins; the first failed join ends it.
func Run(ctx context.Context, cfg Config) ([]Sample, error) {
	r := runner{cfg: cfg, log: cfg.Log}
	if r.log == nil {
		r.log = io.Discard
	}
	for _, rtt := range cfg.RTTs {
		if err := r.cell(ctx, rtt); err != nil {
			return r.samples, fmt.Errorf("RTT %v: %w", rtt, err)
		}
	}
	return r.samples, nil
}

type runner struct {
	cfg     Config
	log     io.Writer
	joins   int // names the players
	samples []Sample
}

func (r *runner) cell(ctx context.Context, rtt time.Duration) error {
	r.cfg.SetRTT(rtt)
	fmt.Fprintf(r.log, "# %s cell rtt=%v\n", time.Now().UTC().Format(time.RFC3339), rtt)
	for _, p := range r.cfg.Paths {
		for i := range r.cfg.Warmup {
			t, err := r.join(ctx, p)
			if err != nil {
				return fmt.Errorf("warmup, path %s: %w", p.Name, err)
			}
			fmt.Fprintf(r.log, "warmup rtt=%v path=%s join=%d %s\n", rtt, p.Name, i+1, t)
		}
	}
	for round := range r.cfg.Rounds {
		for _, pi := range ab.Order(len(r.cfg.Paths), round) {
			if err := r.round(ctx, rtt, round+1, r.cfg.Paths[pi]); err != nil {
				return err
			}
		}
	}
	return nil
}

// round makes one path's joins of a round.
func (r *runner) round(ctx context.Context, rtt time.Duration, round int, p Path) error {
	for j := range r.cfg.Joins {
		at := time.Now()
		t, err := r.join(ctx, p)
		if err != nil {
			return fmt.Errorf("round %d, path %s: %w", round, p.Name, err)
		}
		s := Sample{RTT: rtt, Round: round, Path: p.Name, Join: j + 1, At: at, Timing: t}
		r.samples = append(r.samples, s)
		fmt.Fprintf(r.log, "rtt=%v round=%d path=%s join=%d %s\n", rtt, round, p.Name, j+1, t)
	}
	return nil
}

func (r *runner) join(ctx context.Context, p Path) (Timing, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	r.joins++
	return Once(ctx, p.Dial, fmt.Sprintf("join%06d", r.joins), r.cfg.OneWrite)
}

func (t Timing) String() string {
	return fmt.Sprintf("connect_ms=%.3f login_success_ms=%.3f", ms(t.Connect), ms(t.LoginSuccess))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// roundMedians is, per round in order, the median of what of reads from the samples of rtt and
// path.
func roundMedians(samples []Sample, rtt time.Duration, path string, of func(Timing) time.Duration) []float64 {
	byRound := map[int][]float64{}
	for _, s := range samples {
		if s.RTT == rtt && s.Path == path {
			byRound[s.Round] = append(byRound[s.Round], ms(of(s.Timing)))
		}
	}
	rounds := slices.Sorted(maps.Keys(byRound))
	out := make([]float64, len(rounds))
	for i, round := range rounds {
		out[i] = stats.Summarize(byRound[round]).Median
	}
	return out
}
