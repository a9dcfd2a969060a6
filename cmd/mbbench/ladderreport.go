package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/moonbridge/moonbridge/bench/ladder"
)

// ladderReportCommand: mbbench ladder-report [--svg FILE] REPORT.json..., the headline table,
// every step and one plot for ladders run separately; reports of the same relay and transport
// (one per scenario, say) are merged.
func ladderReportCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ladder-report", "[--svg FILE] REPORT.json...", "One table and plot from the JSON reports of several ladders; reports of the same relay and transport are merged.", stdout, stderr)
	svg := fs.String("svg", "", "write the plot of every report to `FILE`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("give the JSON files of `mbbench ladder --json`")
	}
	var reports []ladder.Report
	for _, path := range fs.Args() {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var r ladder.Report
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		reports = append(reports, r)
	}
	reports = ladder.Merge(reports)
	ladder.Markdown(stdout, reports)
	return writePlot(*svg, reports)
}
