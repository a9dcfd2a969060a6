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
	Measure Measure // one phase: Frames or Upgrades
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
		var directRate float64
		if cfg.Direct {
			m, err := cfg.Measure.Phase(ctx, direct, 0)
			if err != nil {
				return phases, fmt.Errorf("repeat %d direct: %w", rep, err)
			}
			directRate = m[cfg.Measure.Rate]
			phases = append(phases, logged(raw, PhaseReport{rep, PathDirect, m}))
		}
		m, err := cfg.Measure.Phase(ctx, proxy, pid)
		if err != nil {
			return phases, fmt.Errorf("repeat %d proxy: %w", rep, err)
		}
		if directRate > 0 {
			m[phase.ProxyPerDirect] = m[cfg.Measure.Rate] / directRate
		}
		phases = append(phases, logged(raw, PhaseReport{rep, PathProxy, m}))
	}
	return phases, nil
}

func logged(raw io.Writer, p PhaseReport) PhaseReport {
	report.PhaseLine(raw, fmt.Sprintf("repeat %d %s", p.Repeat, p.Path), MetricOrder, p.Metrics)
	return p
}
