package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/moonbridge/moonbridge/bench/flood"
)

// floodReportCommand: mbbench flood-report [--svg FILE] REPORT.json..., the floods run
// separately in one table and plot.
func floodReportCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("flood-report", "[--svg FILE] REPORT.json...", "One table and plot from the JSON reports of several floods.", stdout, stderr)
	svg := fs.String("svg", "", "write the plot of every report to `FILE`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("give the JSON files of `mbbench flood --json`")
	}
	var reports []flood.Report
	for _, path := range fs.Args() {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var r flood.Report
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		reports = append(reports, r)
	}
	return writeFloodReports(stdout, false, *svg, reports)
}
