package main

import (
	"context"
	"encoding"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/logging"
)

// commonFlags are the flags of every long-running command: a config file and the log settings.
type commonFlags struct {
	configFile string
	logLevel   string
	logFormat  string
}

func (f *commonFlags) register(fs *flag.FlagSet, configUsage string) {
	fs.StringVar(&f.configFile, "config", "", configUsage)
	fs.StringVar(&f.logLevel, "log-level", "", "trace, debug, info, warn or error (default info)")
	fs.StringVar(&f.logFormat, "log-format", "", "auto, console or json (default auto: console on a terminal)")
}

// load reads the config file (or takes the embedded defaults) and applies the log flags; the
// keys it returns are those the flags set, for the command's own flags to add to.
func (f *commonFlags) load() (config.Config, flagKeys, error) {
	cfg := config.Default()
	if f.configFile != "" {
		loaded, err := config.Load(f.configFile)
		if err != nil {
			return config.Config{}, nil, err
		}
		cfg = loaded
	}
	keys := flagKeys{}
	keys.set(&cfg.Log.Level, f.logLevel, "log.level", "--log-level")
	keys.set(&cfg.Log.Format, f.logFormat, "log.format", "--log-format")
	return cfg, keys, nil
}

// overrideText parses a flag given into a typed setting; a wrong value names the key it sets.
func overrideText(dst encoding.TextUnmarshaler, key, flagValue string) error {
	if flagValue == "" {
		return nil
	}
	if err := dst.UnmarshalText([]byte(flagValue)); err != nil {
		return &config.InvalidError{Key: key, Reason: err.Error()}
	}
	return nil
}

// runDaemon parses args, builds the effective config, the logger and the contexts that the
// first (stop) and the second (hurry) SIGINT or SIGTERM end, and runs until run returns.
func runDaemon(fs *cliflags.FlagSet, args []string, effective func() (config.Config, error), stderr io.Writer,
	run func(stop, hurry context.Context, cfg config.Config, log zerolog.Logger) error) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 { // `serve version` would otherwise start a proxy
		fmt.Fprintf(stderr, "unexpected argument %q: this command takes flags only\n", fs.Arg(0))
		return fs.UsageError()
	}
	cfg, err := effective()
	if err != nil {
		return err
	}
	log, err := logging.New(stderr, cfg.Log.Level, cfg.Log.Format)
	if err != nil {
		return err
	}
	stop, hurry, release := signalContext(log, os.Exit)
	defer release()
	return run(stop, hurry, cfg, log)
}
