package main

import (
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// backendCommand runs only the fake backend until interrupted, e.g. behind a peer relay that
// is checked by hand.
func backendCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backend", "[flags]", "Run only the fake Minecraft backend until interrupted, e.g. behind a relay checked by hand.", stdout, stderr)
	listen := fs.String("listen", "127.0.0.1:25566", "listen `ADDR`")
	profileName := fs.String("profile", "echo", "echo or modded")
	logLevel := fs.String("log-level", "info", "log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// The echo backend echoes frames of any size; payload and burst only shape clients.
	profile, err := traffic.ByName(*profileName, 1024, 1)
	if err != nil {
		return usageError("%v", err)
	}
	be, err := backend.Listen(*listen, profile, newLogger(stderr, *logLevel))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fake backend (%s) listening on %s\n", profile.Name(), be.Addr())
	ctx, stop := signalContext()
	defer stop()
	<-ctx.Done()
	return be.Close()
}
