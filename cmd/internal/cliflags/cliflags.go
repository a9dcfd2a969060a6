// Package cliflags gives the commands of moonbridge and mbbench one behaviour on the command
// line: --help prints the usage on stdout and succeeds; a mistake prints what was wrong and the
// usage on stderr and fails with ErrUsage (exit status 2).
package cliflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// ErrUsage is a command line that cannot run; the reason and the usage are printed already.
var ErrUsage = errors.New("usage error")

// FlagSet is a flag.FlagSet that knows its command's synopsis and where help and errors go.
type FlagSet struct {
	*flag.FlagSet
	command, synopsis, summary string
	stdout, stderr             io.Writer
}

// New makes the flags of command ("moonbridge serve"); synopsis is the argument summary after
// the command's name and summary says what it does.
func New(command, synopsis, summary string, stdout, stderr io.Writer) *FlagSet {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(stderr) // the flag package's own messages are errors
	fs.Usage = func() {} // Parse prints the usage where it belongs
	return &FlagSet{FlagSet: fs, command: command, synopsis: synopsis, summary: summary, stdout: stdout, stderr: stderr}
}

// Parse parses args. --help (-h) prints the usage on stdout and returns flag.ErrHelp, which
// callers treat as success; an unknown or malformed flag returns ErrUsage.
func (f *FlagSet) Parse(args []string) error {
	err := f.FlagSet.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		f.PrintUsage(f.stdout)
		return flag.ErrHelp
	default: // the flag package printed the error
		f.PrintUsage(f.stderr)
		return ErrUsage
	}
}

// UsageError prints the usage on stderr and returns ErrUsage, for arguments the flags allow but
// the command cannot run with (a missing operand).
func (f *FlagSet) UsageError() error {
	f.PrintUsage(f.stderr)
	return ErrUsage
}

// PrintUsage writes the synopsis, the summary and the flags with their defaults to w.
func (f *FlagSet) PrintUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s %s\n\n%s\n", f.command, f.synopsis, f.summary)
	if f.hasFlags() {
		fmt.Fprintln(w, "\nFlags:")
		f.SetOutput(w)
		f.PrintDefaults()
		f.SetOutput(f.stderr)
	}
}

func (f *FlagSet) hasFlags() bool {
	found := false
	f.VisitAll(func(*flag.Flag) { found = true })
	return found
}
