package ab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"

	"github.com/moonbridge/moonbridge/bench/suite"
)

// RunFunc runs one variant once and returns its proxy and direct phases.
type RunFunc func(ctx context.Context, v Variant) ([]suite.PhaseReport, error)

// Run plays pairs pairs of all variants in rotating order and collects their phases, indexed
// [variant][pair]. progress gets one line per run.
func Run(ctx context.Context, variants []Variant, pairs int, run RunFunc, progress io.Writer) ([][][]suite.PhaseReport, error) {
	results := make([][][]suite.PhaseReport, len(variants))
	for i := range results {
		results[i] = make([][]suite.PhaseReport, pairs)
	}
	for p := range pairs {
		for _, vi := range Order(len(variants), p) {
			fmt.Fprintf(progress, "pair %d: %s\n", p+1, variants[vi].Name)
			phases, err := run(ctx, variants[vi])
			if err != nil {
				return results, fmt.Errorf("pair %d, variant %s: %w", p+1, variants[vi].Name, err)
			}
			results[vi][p] = phases
		}
	}
	return results, nil
}

// Subprocess runs `exe run COMMON VARIANT --json` and decodes its report; the child's stderr
// (its per-phase lines and logs) goes to raw.
func Subprocess(exe string, common []string, raw io.Writer) RunFunc {
	return func(ctx context.Context, v Variant) ([]suite.PhaseReport, error) {
		args := slices.Concat([]string{"run"}, common, v.Args, []string{"--json"})
		cmd := exec.CommandContext(ctx, exe, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, raw
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %v: %w", exe, args, err)
		}
		var doc struct {
			Phases []suite.PhaseReport `json:"phases"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			return nil, fmt.Errorf("decoding the report of %s: %w", v.Name, err)
		}
		return doc.Phases, nil
	}
}
