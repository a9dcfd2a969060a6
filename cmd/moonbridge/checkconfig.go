package main

import (
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

func runCheckConfig(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check-config", "FILE", "Validate a config file (strictly: unknown keys and wrong types are errors) and print the effective configuration, defaults included.", stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.UsageError()
	}
	cfg, err := config.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	out, err := cfg.Marshal()
	if err != nil {
		return fmt.Errorf("rendering the effective config: %w", err)
	}
	fmt.Fprintf(stdout, "# %s is valid; effective configuration:\n%s", fs.Arg(0), out)
	return nil
}
