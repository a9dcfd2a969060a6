// Package suite runs the session benchmark: for each repeat a direct phase (the clients straight
// to the fake backend over TCP) and then a proxy phase (the same clients through the relay),
// and summarises the proxy phases with their proxy/direct ratios.
package suite

import (
	"context"
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/report"
)

// Paths a phase takes.
const (
	PathDirect = "direct"
	PathProxy  = "proxy"
)

// Config is one benchmark run.
type Config struct {
	Phase   phase.Config
	Repeats int
	Direct  bool // pair every proxy phase with a direct phase
}

// PhaseReport is one phase's metrics.
type PhaseReport struct {
	Repeat  int                `json:"repeat"`
	Path    string             `json:"path"`
	Metrics map[string]float64 `json:"metrics"`
}

// Run runs the repeats, writing one line per phase to raw as it ends. proxy reaches the relay,
// direct the backend; pid is the relay's process.
func Run(ctx context.Context, cfg Config, direct, proxy client.Dialer, pid int, raw io.Writer) ([]PhaseReport, error) {
	var phases []PhaseReport
	for rep := 1; rep <= cfg.Repeats; rep++ {
		var directFPS float64
		if cfg.Direct {
			m, err := runPhase(ctx, cfg.Phase, direct, 0)
			if err != nil {
				return phases, fmt.Errorf("repeat %d direct: %w", rep, err)
			}
			directFPS = m[phase.FramesPerSec]
			phases = append(phases, logged(raw, PhaseReport{rep, PathDirect, m}))
		}
		m, err := runPhase(ctx, cfg.Phase, proxy, pid)
		if err != nil {
			return phases, fmt.Errorf("repeat %d proxy: %w", rep, err)
		}
		if directFPS > 0 {
			m[phase.ProxyPerDirect] = m[phase.FramesPerSec] / directFPS
		}
		phases = append(phases, logged(raw, PhaseReport{rep, PathProxy, m}))
	}
	return phases, nil
}

func runPhase(ctx context.Context, cfg phase.Config, d client.Dialer, pid int) (map[string]float64, error) {
	res, err := phase.Run(ctx, d, cfg, pid)
	if err != nil {
		return nil, err
	}
	return res.Metrics(), nil
}

func logged(raw io.Writer, p PhaseReport) PhaseReport {
	report.PhaseLine(raw, fmt.Sprintf("repeat %d %s", p.Repeat, p.Path), phase.MetricOrder, p.Metrics)
	return p
}
