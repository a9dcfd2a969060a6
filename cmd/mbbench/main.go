// Command mbbench is moonbridge's session benchmark: a fake Minecraft backend, clients that log
// in and play the echo or modded profile through a relay and straight to the backend, and the
// relay's CPU, memory and TCP segments per frame from /proc. See bench/doc.go.
//
//	mbbench run [flags]                          one run: direct and proxy phases, summarised
//	mbbench ab --variant NAME=ARGS ... -- FLAGS  alternating pairs of runs, with pair ratios
//	mbbench ladder [flags]                       supported players: paced scenarios at growing counts
//	mbbench ladder-report [--svg F] JSON...      ladders run separately, in one table and plot
//	mbbench flood [flags]                        floods of each class and rate while players play
//	mbbench flood-report [--svg F] JSON...       floods run separately, in one table and plot
//	mbbench flood-fair [flags]                   one attacker in bursts, a player elsewhere, attack mode sampled
//	mbbench transfer --from A --to B [flags]     drain by transfer: players moved between running proxies
//	mbbench join --serve BIN [flags]             join time through a simulated CDN path (namespaces, delay)
//	mbbench handover --serve BIN [flags]         a binary upgrade under load: what players and new connections saw
//	mbbench wire --serve BIN [flags]             bridge and proxy CPU per frame, bytes on the wire, per path
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
	"slices"
	"syscall"

	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
)

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand; run parses its flags from args.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"run", "one run: direct and proxy phases, summarised", runCommand},
	{"ab", "alternating pairs of runs of several variants, with pair ratios", abCommand},
	{"ladder", "the supported-players ladder: paced players in steps until a step fails", ladderCommand},
	{"ladder-report", "one table and plot from several ladder JSON reports", ladderReportCommand},
	{"flood", "connection floods of each class and rate while legitimate players play", floodCommand},
	{"stalls", "TLS handshakes stalled inside their ClientHello, held while the proxy's memory is sampled", stallsCommand},
	{"flood-report", "one table and plot from several flood JSON reports", floodReportCommand},
	{"flood-fair", "one attacker floods in bursts while a player elsewhere pings or logs in; attack mode once a second", fairCommand},
	{"transfer", "drain by transfer: 1.21.1 players moved from one running proxy to another", transferCommand},
	{"join", "join time through a simulated CDN path: raw TCP against the bridge, at several RTTs", joinCommand},
	{"handover", "a binary upgrade (SIGUSR2) under load: players broken, sessions moved, pauses, refused connects", handoverCommand},
	{"wire", "CPU per frame of bridge and proxy and bytes on the wire, per path of the simulated CDN path", wireCommand},
	{"backend", "only the fake backend, for manual checks", backendCommand},
}

// dispatch runs a subcommand and maps its error to an exit code: 0 for a success or --help, 2
// for a bad command line, 1 for a failed run (any validation error included).
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printUsage(stdout)
		return 0
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "mbbench: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return 2
	}
	err := commands[i].run(args[1:], stdout, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, cliflags.ErrUsage): // printed already
		return 2
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "mbbench %s: %v\n", args[0], err)
		return 2
	}
	fmt.Fprintf(stderr, "mbbench %s: FAILED: %v\n", args[0], err)
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "mbbench: moonbridge's session benchmark (see bench/doc.go)")
	fmt.Fprintln(w, "\nUsage: mbbench COMMAND [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `mbbench COMMAND --help` for a command's flags.")
}

// newFlagSet makes the flags of `mbbench NAME`: --help prints them on stdout.
func newFlagSet(name, synopsis, summary string, stdout, stderr io.Writer) *cliflags.FlagSet {
	return cliflags.New("mbbench "+name, synopsis, summary, stdout, stderr)
}

// signalContext ends on SIGINT or SIGTERM, so that a stopped run still stops what it started.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// errUsage marks a command line that parses but cannot run.
var errUsage = errors.New("usage")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}
