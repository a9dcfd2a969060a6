// Command moonbridge is the Minecraft edge proxy: `serve` runs the proxy, `client` is the bridge
// an unmodified game client uses, `token` makes access keys and tokens, `maintenance` switches
// the running proxy's maintenance mode through its admin endpoint, `version` and
// `check-config` describe the binary and a config. Without a command, as a double-click starts
// it, it is the client bridge for a player (playerstart.go).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
)

// command is one subcommand: its flags are parsed from args and run does the work.
type command struct {
	name    string
	summary string
	usage   string // argument synopsis after the name
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the proxy", "[flags]", runServe},
		{"client", "run the client bridge for an unmodified game client", "--url wss://HOST/PATH [flags]", runClient},
		{"token", "make signing keys and access tokens, and check a token", "keygen|issue|verify [flags]", runToken},
		{"version", "print version, build flavour, BoringSSL revision and CPU features (also --version)", "[--json]", runVersion},
		{"check-config", "validate a config file and print the effective config", "FILE", runCheckConfig},
		{"maintenance", "switch or show the running proxy's maintenance mode", "on|off|status [flags]", runMaintenance},
		{"help", "show help for a command", "[COMMAND]", runHelp},
	}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// dispatch runs the subcommand named by args[0] and returns the process exit code. Without
// one it is the player's start (startWithoutCommand), which may read stdin.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return startWithoutCommand(stdin, stdout, stderr)
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		printUsage(stdout)
		return 0
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, cliflags.ErrUsage):
				return 2
			default:
				fmt.Fprintf(stderr, "moonbridge %s: %v\n", name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "moonbridge: unknown command %q\n\n", name)
	printUsage(stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "moonbridge: a Minecraft edge proxy for servers that players reach through a CDN over WebSocket")
	fmt.Fprintln(w, "\nUsage: moonbridge COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `moonbridge COMMAND --help` for a command's flags. Started without a command from a console,")
	fmt.Fprintln(w, "or beside a "+clientFileName+", moonbridge is the client bridge for players (docs/client.md).")
}

// newFlagSet makes the flags of `moonbridge NAME`: --help prints usage and summary on stdout.
func newFlagSet(name, usage, summary string, stdout, stderr io.Writer) *cliflags.FlagSet {
	return cliflags.New("moonbridge "+name, usage, summary, stdout, stderr)
}

func runHelp(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("help", "[COMMAND]", "Show the commands, or one command's flags.", stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		printUsage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == fs.Arg(0) {
			return c.run([]string{"--help"}, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "moonbridge help: unknown command %q\n", fs.Arg(0))
	return cliflags.ErrUsage
}
