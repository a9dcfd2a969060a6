// Command mbbench is moonbridge's session benchmark: a fake Minecraft backend, clients that log
// in and play the echo or modded profile through a relay and straight to the backend, and the
// relay's CPU, memory and TCP segments per frame from /proc. See bench/doc.go.
//
//	mbbench run [flags]                          one run: direct and proxy phases, summarised
//	mbbench ab --variant NAME=ARGS ... -- FLAGS  alternating pairs of runs, with pair ratios
//	mbbench ladder [flags]                       supported players: paced scenarios at growing counts
//	mbbench ladder-report [--svg F] JSON...      ladders run separately, in one table and plot
//	mbbench backend [flags]                      only the fake backend, for manual checks
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

var commands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"run":           runCommand,
	"ab":            abCommand,
	"ladder":        ladderCommand,
	"ladder-report": ladderReportCommand,
	"backend":       backendCommand,
}

// dispatch runs a subcommand and maps its error to an exit code: 2 for a bad command line, 1
// for a failed run (any validation error included).
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || commands[args[0]] == nil {
		fmt.Fprintln(stderr, "usage: mbbench run|ab|ladder|ladder-report|backend [flags]   (mbbench COMMAND --help for flags)")
		return 2
	}
	err := commands[args[0]](args[1:], stdout, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "mbbench %s: %v\n", args[0], err)
		return 2
	}
	fmt.Fprintf(stderr, "mbbench %s: FAILED: %v\n", args[0], err)
	return 1
}

// parseFlags parses args, marking a bad command line as a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usageError("%v", err)
}

// signalContext ends on SIGINT or SIGTERM, so that a stopped run still stops what it started.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// errUsage marks a command line that cannot run.
var errUsage = errors.New("usage")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}
