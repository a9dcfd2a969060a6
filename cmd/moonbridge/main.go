// Command moonbridge is the Minecraft edge proxy: `serve` runs the proxy, `client` is the bridge
// an unmodified game client uses, `version` and `check-config` describe the binary and a config.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
		{"version", "print version, build flavour, BoringSSL revision and CPU features", "[--json]", runVersion},
		{"check-config", "validate a config file and print the effective config", "FILE", runCheckConfig},
		{"help", "show help for a command", "[COMMAND]", runHelp},
	}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the subcommand named by args[0] and returns the process exit code.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "-help" {
		printUsage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == name {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
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

// errUsage means the flag package already printed what was wrong with the command line.
var errUsage = errors.New("usage error")

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "moonbridge: a Minecraft edge proxy for servers that players reach through a CDN over WebSocket")
	fmt.Fprintln(w, "\nUsage: moonbridge COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `moonbridge COMMAND --help` for a command's flags.")
}

// newFlagSet makes a FlagSet whose --help prints the command's synopsis and flags.
func newFlagSet(name, usage, summary string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: moonbridge %s %s\n\n%s\n", name, usage, summary)
		if hasFlags(fs) {
			fmt.Fprintln(out, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	found := false
	fs.VisitAll(func(*flag.Flag) { found = true })
	return found
}

// parseFlags parses args and maps the flag package's errors to ours.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

func runHelp(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("help", "[COMMAND]", "Show the commands, or one command's flags.", stderr)
	if err := parseFlags(fs, args); err != nil {
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
	return errUsage
}
