// Package phase runs one timed phase: every session logs in, warms up, waits for the others,
// and then all play their measured round trips while the proxy process is sampled before and
// after. Only the measured round trips count.
package phase

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/procfs"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// Config is the workload of one phase.
type Config struct {
	Profile     traffic.Profile
	Connections int
	Warmup      uint64 // round trips per connection before measuring
	Messages    uint64 // measured round trips per connection
	Window      int    // round trips in flight per connection
	Coalesce    bool   // one write per round trip instead of one per packet
	// Around, when set, is called just before the measured round trips and what it returns
	// just after, beside the relay's samples: for what else a run samples (another process,
	// a link's counters).
	Around func() (after func())
}

// Result is what one phase measured. PID 0 means no process was sampled (the direct phase).
type Result struct {
	PID        int
	Frames     int64 // measured frames, both directions
	Elapsed    time.Duration
	RTT        []time.Duration // sorted
	LoginBurst []time.Duration // one per session, when the profile has a burst
	Before     procfs.Sample
	After      procfs.Sample
	// GenCPU is mbbench's own CPU over the measured round trips: the players and the fake
	// backend, which share its process. Near a core's worth per core the relay does not get,
	// the generator rather than the relay may be what limits frames/s.
	GenCPU time.Duration
}

// Run plays one phase against whatever d reaches, sampling pid (0 for none).
func Run(ctx context.Context, d client.Dialer, cfg Config, pid int) (Result, error) {
	res := Result{PID: pid, LoginBurst: make([]time.Duration, cfg.Connections)}
	sessions := make([]*client.Session, cfg.Connections)
	defer closeAll(sessions)
	err := forEach(cfg.Connections, cfg.Connections, func(i int) error {
		s, burst, err := client.Login(ctx, d, cfg.Profile, sessionName(i), cfg.Coalesce)
		sessions[i], res.LoginBurst[i] = s, burst
		return err
	})
	if err != nil {
		return res, fmt.Errorf("login: %w", err)
	}
	if len(cfg.Profile.LoginBurst().Bytes) == 0 {
		res.LoginBurst = nil
	}
	if err := each(sessions, func(s *client.Session) error {
		_, _, err := s.Run(ctx, 0, cfg.Warmup, cfg.Window, nil)
		return err
	}); err != nil {
		return res, fmt.Errorf("warmup: %w", err)
	}
	return measure(ctx, sessions, cfg, res)
}

// measure runs the timed round trips between two samples of the proxy process.
func measure(ctx context.Context, sessions []*client.Session, cfg Config, res Result) (Result, error) {
	rtts := make([][]time.Duration, len(sessions))
	frames := make([]int64, len(sessions))
	var err error
	if res.Before, err = procfs.Take(res.PID); err != nil {
		return res, err
	}
	gen0, err := procfs.SelfCPU()
	if err != nil {
		return res, err
	}
	after := func() {}
	if cfg.Around != nil {
		after = cfg.Around()
	}
	start := time.Now()
	err = forEach(len(sessions), len(sessions), func(i int) error {
		var err error
		buf := make([]time.Duration, 0, cfg.Messages)
		rtts[i], frames[i], err = sessions[i].Run(ctx, cfg.Warmup, cfg.Messages, cfg.Window, buf)
		return err
	})
	res.Elapsed = time.Since(start)
	after()
	if err != nil {
		return res, fmt.Errorf("measured round trips: %w", err)
	}
	gen1, err := procfs.SelfCPU()
	if err != nil {
		return res, err
	}
	res.GenCPU = gen1 - gen0
	if res.After, err = procfs.Take(res.PID); err != nil {
		return res, err
	}
	for i := range sessions {
		res.Frames += frames[i]
	}
	res.RTT = slices.Sorted(slices.Values(slices.Concat(rtts...)))
	return res, nil
}

// sessionName is a distinct player name per connection, within the 16 bytes vanilla allows.
func sessionName(i int) string { return fmt.Sprintf("mbbench%05d", i) }
