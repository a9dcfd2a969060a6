package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/moonbridge/moonbridge/bench/ab"
)

// abCommand: mbbench ab --pairs N --variant NAME=ARGS ... [-- common run flags].
func abCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ab", "--variant NAME=ARGS ... [--pairs N] [-- RUN FLAGS]",
		"Run the variants in alternating pairs (each variant is `mbbench run` with its ARGS and the common RUN FLAGS after --) and compare them by pair ratios, the first variant as the baseline.", stdout, stderr)
	var specs stringList
	fs.Var(&specs, "variant", "`NAME=ARGS`: a variant and its `mbbench run` flags (repeat; the first is the baseline of the ratios)")
	pairs := fs.Int("pairs", 3, "pairs of runs; the starting variant rotates from pair to pair")
	asJSON := fs.Bool("json", false, "print the comparison as JSON instead of markdown")
	if err := fs.Parse(args); err != nil {
		return err
	}
	variants, err := parseVariants(specs)
	if err != nil {
		return err
	}
	if *pairs < 1 {
		return usageError("--pairs must be at least 1")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	results, err := ab.Run(ctx, variants, *pairs, ab.Subprocess(exe, fs.Args(), stderr), stderr)
	if err != nil {
		return err
	}
	c := ab.Compare(variants, results)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	c.Markdown(stdout)
	return nil
}

func parseVariants(specs []string) ([]ab.Variant, error) {
	if len(specs) == 0 {
		return nil, usageError("give at least one --variant NAME=ARGS")
	}
	variants := make([]ab.Variant, len(specs))
	for i, s := range specs {
		v, err := ab.ParseVariant(s)
		if err != nil {
			return nil, usageError("%v", err)
		}
		variants[i] = v
	}
	return variants, nil
}
