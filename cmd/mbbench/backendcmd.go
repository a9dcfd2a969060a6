package main

import (
	"fmt"
	"io"
	"math"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// backendCommand runs only the fake backend until interrupted, e.g. behind a peer relay that
// is checked by hand.
func backendCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backend", "[flags]", "Run only the fake Minecraft backend until interrupted, e.g. behind a relay checked by hand.", stdout, stderr)
	listen := fs.String("listen", "127.0.0.1:25566", "listen `ADDR`")
	profileName := fs.String("profile", "echo", "echo or modded")
	logLevel := fs.String("log-level", "info", "log level")
	compression := fs.Int("compression", 256, "Set Compression `threshold` of 1.21.1 (protocol 767) logins, which the backend serves whatever --profile says (-1: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *compression < -1 || *compression > math.MaxInt32 {
		return usageError("--compression %d: want -1 or a threshold", *compression)
	}
	// The echo backend echoes frames of any size; payload and burst only shape clients.
	profile, err := traffic.ByName(*profileName, 1024, 1)
	if err != nil {
		return usageError("%v", err)
	}
	opts := backend.Options{Modern: modern.ServerConfig{Compression: int32(*compression)}}
	be, err := backend.ListenWith(*listen, profile, newLogger(stderr, *logLevel), opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fake backend (%s; 1.21.1 logins with compression %d) listening on %s\n", profile.Name(), *compression, be.Addr())
	ctx, stop := signalContext()
	defer stop()
	<-ctx.Done()
	return be.Close()
}
