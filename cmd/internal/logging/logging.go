// Package logging builds the zerolog logger the binaries hand to every package: human console
// output on a terminal, JSON otherwise; every line has a level and a time.
package logging

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rs/zerolog"
)

// Durations (a session's "duration") are written with their unit, as Go writes them ("1.5s",
// "2m3.25s", "850ms"): zerolog's default is a bare number of milliseconds that a reader has to
// know. It is zerolog's global, set once here before any logger exists, so that no goroutine
// reads it while it changes.
func init() {
	zerolog.DurationFieldFormat = zerolog.DurationFormatString
}

// New returns a logger writing to out at level ("info", "debug", ...) in format "auto",
// "console" or "json"; auto is console when out is a terminal.
func New(out io.Writer, level, format string) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Nop(), fmt.Errorf("log level %q: want trace, debug, info, warn or error", level)
	}
	switch format {
	case "json":
	case "console":
		out = zerolog.ConsoleWriter{Out: out, TimeFormat: time.DateTime}
	case "auto":
		if isTerminal(out) {
			out = zerolog.ConsoleWriter{Out: out, TimeFormat: time.DateTime}
		}
	default:
		return zerolog.Nop(), fmt.Errorf("log format %q: want auto, console or json", format)
	}
	return zerolog.New(out).Level(lvl).With().Timestamp().Logger(), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
